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
import JuiceMakerCore
import JuiceHTTP
import JuiceMakerPluginKit
import JuicePrimitives
import Locking

/// One webhook endpoint as a durable destination: POSTs each event as a CloudEvents
/// structured JSON body, signed, and turns the answer into success or a failure the
/// runner understands.
///
/// - 2xx: delivered.
/// - 410 Gone: a permanent failure (the endpoint asked never to be called again).
/// - 429 and 503 with `Retry-After` (seconds or an HTTP date): retried then, and the
///   runner sends nothing else to the endpoint until then.
/// - Any other status, a timeout, a refused connection: retried on the schedule.
///
/// Requests go through the package's own `HTTPClientPool`: up to `window` at once,
/// each on a kept-alive connection of its own (TLS verified against the system's
/// trust store), on the pool's threads, never on the cooperative pool. Each request is
/// built and signed on its connection's thread when it is sent.
final class WebhookEndpoint: DurableDestination {
    let url: ParsedURL
    /// The URL as it may be shown: without user name or password.
    let displayURL: String
    /// Requests in flight, at most (1 when `ordered`).
    let window: Int
    /// A window of `window` requests, answered from the pool's threads.
    var intake: DeliveryIntake { .window(window) }
    private let signature: WebhookSignature?
    private let timeout: Double
    /// The longest wait a `Retry-After` may ask for: the longest step of the retry schedule.
    private let longestRetryAfter: Double
    private let pool: HTTPClientPool
    /// Whether `close` ran: later deliveries are not sent.
    private let closed = Locked(false)

    init(url: ParsedURL, target: HTTPTarget, signature: WebhookSignature?, timeout: Double, longestRetryAfter: Double, window: Int = 1) {
        self.url = url
        self.longestRetryAfter = longestRetryAfter
        self.displayURL = URLCredentials.redacted(url.string)
        self.signature = signature
        self.timeout = timeout
        self.window = max(1, window)
        pool = HTTPClientPool(target: target, size: self.window)
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

    /// Sends each event of `offer` on a free connection of the pool and answers it with the outcome.
    func send(_ offer: DeliveryOffer) {
        for (position, event) in zip(0..., offer.events) {
            let envelope = event.envelope
            guard !closed.withLock({ $0 }) else {
                offer.answer(position, notSent)
                continue
            }
            let deadline = ContinuousClock.now + .seconds(timeout)
            pool.submit(until: deadline, { [self] in request(for: envelope, timestamp: Int64(Date().timeIntervalSince1970)) }) {
                [self] result in
                switch result {
                case .success(let head): offer.answer(position, outcome(head))
                case .failure(let error): offer.answer(position, closed.withLock { $0 } ? notSent : failure(error))
                }
            }
        }
    }

    /// Ends the requests under way (shutdown's deadline came).
    func cancelSends() {
        pool.cancelInFlight()
    }

    /// What an answer means: `nil` for 2xx, else the failure the runner acts on.
    private func outcome(_ head: HTTPResponseHead) -> DeliveryFailure? {
        let status = head.status
        switch status {
        case 200..<300:
            return nil
        case 410:
            return DeliveryFailure(
                PluginMessage(
                    english: "\(displayURL) answered 410 Gone: the endpoint is disabled",
                    korean: "\(displayURL)이(가) 410 Gone으로 답했습니다. 엔드포인트가 꺼졌습니다"), isPermanent: true)
        case 429, 503:
            let retryAfter = head.value(of: "retry-after").flatMap {
                Self.retryAfterSeconds($0, now: Date(), longest: longestRetryAfter)
            }
            return DeliveryFailure(answered(status), retryAfter: retryAfter)
        default:
            return DeliveryFailure(answered(status))
        }
    }

    private func answered(_ status: Int) -> PluginMessage {
        PluginMessage(english: "\(displayURL) answered HTTP \(status)", korean: "\(displayURL)이(가) HTTP \(status)로 답했습니다")
    }

    /// Ends the requests under way and closes the kept connections. Later deliveries fail.
    func close() {
        closed.withLock { $0 = true }
        pool.close()
    }

    /// Closes it (`close`) when the plugin shuts down.
    func stop(deadline: ContinuousClock.Instant) async {
        close()
    }

    private var notSent: DeliveryFailure {
        DeliveryFailure(
            PluginMessage(english: "POST \(displayURL) not sent: shutting down", korean: "POST \(displayURL)을(를) 보내지 않았습니다. 종료하는 중입니다"))
    }

    private func failure(_ error: HTTPClientError) -> DeliveryFailure {
        DeliveryFailure(
            PluginMessage(
                english: "POST \(displayURL) failed: \(error.message.english)", korean: "POST \(displayURL) 실패: \(error.message.korean)"))
    }

    /// Seconds from `now` a `Retry-After` value asks for (`RetryAfter.seconds`), at most
    /// `longest`: a server may ask for less than the schedule's longest step, never more,
    /// so a huge or far-future value cannot park an event for years. `nil` when the value
    /// is neither delay-seconds nor an HTTP date (the schedule applies).
    static func retryAfterSeconds(_ value: String, now: Date, longest: Double) -> Double? {
        RetryAfter.seconds(value, now: now).map { min($0, max(0, longest)) }
    }
}
