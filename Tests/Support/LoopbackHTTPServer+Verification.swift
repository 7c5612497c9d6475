extension LoopbackHTTPServer {
    /// A check of each request (a value, not a closure parameter, so a trailing
    /// closure still means the answer).
    package struct RequestCheck: Sendable {
        let accepts: @Sendable (Request) -> Bool
        package init(_ accepts: @escaping @Sendable (Request) -> Bool) { self.accepts = accepts }

        /// Accepts a request whose Standard Webhooks headers (`webhook-id`,
        /// `webhook-timestamp`, `webhook-signature`) are present and pass `verify`
        /// (`WebhookSignature.verify`).
        package static func standardWebhooks(
            _ verify: @escaping @Sendable (_ header: String, _ id: String, _ timestamp: Int64, _ body: [UInt8]) -> Bool
        ) -> RequestCheck {
            RequestCheck { request in
                guard let id = request.headers["webhook-id"], let header = request.headers["webhook-signature"],
                    let timestamp = request.headers["webhook-timestamp"].flatMap({ Int64($0) })
                else { return false }
                return verify(header, id, timestamp, request.body)
            }
        }
    }

    /// A server with `latency` that counts the requests whose Standard Webhooks
    /// signature `verify` (`WebhookSignature.verify`) refuses.
    package static func signed(
        latency: Duration, verify: @escaping @Sendable (_ header: String, _ id: String, _ timestamp: Int64, _ body: [UInt8]) -> Bool,
        script: @escaping @Sendable (Int, Request) -> Answer
    ) -> LoopbackHTTPServer {
        LoopbackHTTPServer(latency: latency, verify: .standardWebhooks(verify), script: script)
    }

    /// Requests `verify` refused.
    package var failedVerification: Int { state.withLock { $0.failedVerification } }
}
