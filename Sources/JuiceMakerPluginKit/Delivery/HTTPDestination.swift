#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceHTTP
import JuiceMakerCore
import JuicePrimitives
import Locking

/// An HTTP endpoint as a durable destination: POSTs each event as the request a plugin
/// makes of it (`request`), and turns the answer into the host's:
///
/// - 2xx: accepted.
/// - 410 Gone: refused for good (the endpoint asked never to be called again).
/// - 429 and 503 with `Retry-After` (seconds or an HTTP date): retried then, at most
///   `longestRetryAfter` from now, and the runner sends nothing else until then.
/// - Any other status, a timeout, a refused connection: retried on the schedule.
///
/// Requests go through `JuiceHTTP`'s `HTTPClientPool`: up to `window` at once, each on a
/// kept-alive connection of its own (TLS verified against the system's trust store), on
/// the pool's threads, never on the cooperative pool. Each request is made (and signed)
/// on its connection's thread when it is sent.
package final class HTTPDestination: DurableDestination {
    /// The URL as it may be shown: without user name or password.
    package let displayURL: String
    /// Requests in flight, at most.
    package let window: Int
    private let timeout: Double
    private let longestRetryAfter: Double
    private let request: @Sendable (EventEnvelope, _ timestamp: Int64) -> HTTPRequest
    private let pool: HTTPClientPool
    /// Whether `stop` ran: later sends are not sent.
    private let closed = Locked(false)

    /// - Parameters:
    ///   - request: the request for an event, made at `timestamp` (Unix seconds).
    package init(
        target: HTTPTarget, displayURL: String, window: Int, timeout: Double, longestRetryAfter: Double,
        request: @escaping @Sendable (EventEnvelope, _ timestamp: Int64) -> HTTPRequest
    ) {
        self.displayURL = displayURL
        self.window = max(1, window)
        self.timeout = timeout
        self.longestRetryAfter = longestRetryAfter
        self.request = request
        pool = HTTPClientPool(target: target, size: self.window)
    }

    /// A window of `window` requests, answered from the pool's threads.
    package var intake: DeliveryIntake { .window(window) }

    /// Sends each event of `offer` on a free connection of the pool and answers it with the outcome.
    package func send(_ offer: DeliveryOffer) {
        for (position, event) in zip(0..., offer.events) {
            let envelope = event.envelope
            guard !closed.withLock({ $0 }) else {
                offer.answer(position, notSent)
                continue
            }
            let deadline = ContinuousClock.now + .seconds(timeout)
            pool.submit(until: deadline, { [request] in request(envelope, Int64(Date().timeIntervalSince1970)) }) { [self] result in
                switch result {
                case .success(let head): offer.answer(position, outcome(head))
                case .failure(let error): offer.answer(position, closed.withLock { $0 } ? notSent : failure(error))
                }
            }
        }
    }

    /// Ends the requests under way (shutdown's deadline came).
    package func cancelSends() {
        pool.cancelInFlight()
    }

    /// Ends the requests under way and closes the kept connections. Later sends fail.
    package func stop(deadline: ContinuousClock.Instant) async {
        closed.withLock { $0 = true }
        pool.close()
    }

    /// What an HTTP answer means for the runner.
    private func outcome(_ head: HTTPResponseHead) -> DeliveryAnswer {
        switch head.status {
        case 200..<300:
            return .accepted
        case 410:
            return .refused(
                PluginMessage(
                    english: "\(displayURL) answered 410 Gone: the endpoint is disabled",
                    korean: "\(displayURL)이(가) 410 Gone으로 답했습니다. 엔드포인트가 꺼졌습니다"))
        case 429, 503:
            let retryAfter = head.value(of: "retry-after").flatMap {
                Self.retryAfterSeconds($0, now: Date(), longest: longestRetryAfter)
            }
            return .retry(answered(head.status), after: retryAfter)
        default:
            return .retry(answered(head.status))
        }
    }

    private func answered(_ status: Int) -> PluginMessage {
        PluginMessage(english: "\(displayURL) answered HTTP \(status)", korean: "\(displayURL)이(가) HTTP \(status)로 답했습니다")
    }

    private var notSent: DeliveryAnswer {
        .retry(
            PluginMessage(english: "POST \(displayURL) not sent: shutting down", korean: "POST \(displayURL)을(를) 보내지 않았습니다. 종료하는 중입니다"))
    }

    private func failure(_ error: HTTPClientError) -> DeliveryAnswer {
        .retry(
            PluginMessage(
                english: "POST \(displayURL) failed: \(error.message.english)", korean: "POST \(displayURL) 실패: \(error.message.korean)"))
    }

    /// Seconds from `now` a `Retry-After` value asks for (`RetryAfter.seconds`), at most
    /// `longest`: a server may ask for less than the schedule's longest step, never more,
    /// so a huge or far-future value cannot park an event for years. `nil` when the value
    /// is neither delay-seconds nor an HTTP date (the schedule applies).
    package static func retryAfterSeconds(_ value: String, now: Date, longest: Double) -> Double? {
        RetryAfter.seconds(value, now: now).map { min($0, max(0, longest)) }
    }
}
