#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import JuiceMakerCore
import JuiceHTTP
import JuiceMakerPluginKit
import Locking

/// One webhook endpoint as a durable destination: POSTs each event as a CloudEvents
/// structured JSON body, signed, and turns the answer into success or a failure the
/// runner understands.
///
/// - 2xx: delivered.
/// - 410 Gone: a permanent failure (the endpoint asked never to be called again).
/// - 429 and 503 with `Retry-After` (seconds or an HTTP date): retried then.
/// - Any other status, a timeout, a refused connection: retried on the schedule.
///
/// Requests go through the package's own `HTTPClient` (keep-alive, TLS verified
/// against the system's trust store) on a serial queue of the endpoint's own, never
/// on the cooperative pool: `deliver` hands the request over and awaits the answer.
/// Cancelling the delivering task wakes the request's `poll` at once.
final class WebhookEndpoint: OwnedDurableDestination {
    let url: ParsedURL
    /// The URL as it may be shown: without user name or password.
    let displayURL: String
    private let signature: WebhookSignature?
    private let timeout: Double
    /// The longest wait a `Retry-After` may ask for: the longest step of the retry schedule.
    private let longestRetryAfter: Double
    /// The client, used on `io` only (the lock is never contended; it makes the
    /// hand-over between the queue's threads visible to the compiler and TSan).
    private let client: Locked<HTTPClient>
    private let cancellation = HTTPCancellation()
    private let io = DispatchQueue(label: "WebhookPlugin.endpoint")
    /// Whether `close` ran: later deliveries are not sent.
    private let closed = Locked(false)

    init(url: ParsedURL, target: HTTPTarget, signature: WebhookSignature?, timeout: Double, longestRetryAfter: Double) {
        self.url = url
        self.longestRetryAfter = longestRetryAfter
        self.displayURL = URLCredentials.redacted(url.string)
        self.signature = signature
        self.timeout = timeout
        client = Locked(HTTPClient(target: target))
    }

    /// The request for `envelope`, signed at `timestamp` (Unix seconds).
    func request(for envelope: EventEnvelope, timestamp: Int64) -> HTTPRequest {
        let body = Array(CloudEventFormat.encode(envelope).utf8)
        let id = envelope.id.description
        var fields: [(name: String, value: String)] = [
            ("Content-Type", CloudEventFormat.contentType), ("User-Agent", "JuiceMaker"), ("Accept", "*/*"),
            ("webhook-id", id), ("webhook-timestamp", String(timestamp)),
        ]
        if let signature {
            fields.append(("webhook-signature", signature.signature(id: id, timestamp: timestamp, body: body)))
        }
        return HTTPRequest(fields: fields, body: body)
    }

    func deliver(_ envelope: EventEnvelope) async throws(DeliveryFailure) {
        let deadline = ContinuousClock.now + .seconds(timeout)
        let request = request(for: envelope, timestamp: Int64(Date().timeIntervalSince1970))
        let head = try await send(request, until: deadline)
        let status = head.status
        switch status {
        case 200..<300:
            return
        case 410:
            throw DeliveryFailure(
                PluginMessage(
                    english: "\(displayURL) answered 410 Gone: the endpoint is disabled",
                    korean: "\(displayURL)이(가) 410 Gone으로 답했습니다. 엔드포인트가 꺼졌습니다"), isPermanent: true)
        case 429, 503:
            let retryAfter = head.value(of: "retry-after").flatMap {
                Self.retryAfterSeconds($0, now: Date(), longest: longestRetryAfter)
            }
            throw DeliveryFailure(answered(status), retryAfter: retryAfter)
        default:
            throw DeliveryFailure(answered(status))
        }
    }

    private func answered(_ status: Int) -> PluginMessage {
        PluginMessage(english: "\(displayURL) answered HTTP \(status)", korean: "\(displayURL)이(가) HTTP \(status)로 답했습니다")
    }

    /// Ends a request under way and closes the kept connection. Later deliveries fail.
    func close() {
        closed.withLock { $0 = true }
        cancellation.cancelAll()
        io.async { [client] in client.withLock { $0.close() } }
    }

    /// Closes it (`close`) when the plugin shuts down.
    func stop(deadline: ContinuousClock.Instant) async {
        close()
    }

    /// Makes the request on `io`; cancelling the calling task cancels it.
    private func send(_ request: HTTPRequest, until deadline: ContinuousClock.Instant) async throws(DeliveryFailure) -> HTTPResponseHead {
        let number = cancellation.begin()
        let outcome: Result<HTTPResponseHead, HTTPClientError>? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                io.async { [self] in
                    guard !closed.withLock({ $0 }) else { return continuation.resume(returning: nil) }
                    let result = client.withLock { client in
                        Result { () throws(HTTPClientError) in
                            try client.send(request, until: deadline, cancellation: cancellation, number: number)
                        }
                    }
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            cancellation.cancel(number)
        }
        switch outcome {
        case .success(let head)?:
            return head
        case .failure(let error)?:
            throw DeliveryFailure(
                PluginMessage(
                    english: "POST \(displayURL) failed: \(error.message.english)",
                    korean: "POST \(displayURL) 실패: \(error.message.korean)"))
        case nil:
            throw DeliveryFailure(
                PluginMessage(
                    english: "POST \(displayURL) not sent: shutting down", korean: "POST \(displayURL)을(를) 보내지 않았습니다. 종료하는 중입니다"))
        }
    }

    /// Seconds from `now` a `Retry-After` value asks for (`RetryAfter.seconds`), at most
    /// `longest`: a server may ask for less than the schedule's longest step, never more,
    /// so a huge or far-future value cannot park an event for years. `nil` when the value
    /// is neither delay-seconds nor an HTTP date (the schedule applies).
    static func retryAfterSeconds(_ value: String, now: Date, longest: Double) -> Double? {
        RetryAfter.seconds(value, now: now).map { min($0, max(0, longest)) }
    }
}
