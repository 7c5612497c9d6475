import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JuiceMakerCore
import Locking

/// One webhook endpoint as a durable destination: POSTs each event as a CloudEvents
/// structured JSON body, signed, and turns the answer into success or a failure the
/// runner understands.
///
/// - 2xx: delivered.
/// - 410 Gone: a permanent failure (the endpoint asked never to be called again).
/// - 429 and 503 with `Retry-After` (seconds or an HTTP date): retried then.
/// - Any other status, a timeout, a refused connection: retried on the schedule.
final class WebhookEndpoint: DurableDestination {
    let url: URL
    /// The URL as it may be shown: without user name or password.
    let displayURL: String
    private let signature: WebhookSignature?
    private let timeout: Double
    /// The longest wait a `Retry-After` may ask for: the longest step of the retry schedule.
    private let longestRetryAfter: Double
    private let session: URLSession
    /// Whether `close` ran; held while a request is handed to the session, so none
    /// is handed over after the session is invalidated.
    private let closed = Locked(false)

    init(url: URL, signature: WebhookSignature?, timeout: Double, longestRetryAfter: Double) {
        self.url = url
        self.longestRetryAfter = longestRetryAfter
        self.displayURL = URLCredentials.redacted(url.absoluteString)
        self.signature = signature
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        session = URLSession(configuration: configuration)
    }

    /// The request for `envelope`, signed at `timestamp` (Unix seconds).
    func request(for envelope: EventEnvelope, timestamp: Int64) -> URLRequest {
        let body = Array(CloudEventFormat.encode(envelope).utf8)
        let id = envelope.id.description
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue(CloudEventFormat.contentType, forHTTPHeaderField: "Content-Type")
        request.setValue("JuiceMaker", forHTTPHeaderField: "User-Agent")
        request.setValue(id, forHTTPHeaderField: "webhook-id")
        request.setValue(String(timestamp), forHTTPHeaderField: "webhook-timestamp")
        if let signature {
            request.setValue(signature.signature(id: id, timestamp: timestamp, body: body), forHTTPHeaderField: "webhook-signature")
        }
        return request
    }

    func deliver(_ envelope: EventEnvelope) async throws(DeliveryFailure) {
        let request = request(for: envelope, timestamp: Int64(Date().timeIntervalSince1970))
        let response = try await send(request)
        guard let http = response as? HTTPURLResponse else {
            throw DeliveryFailure("POST \(displayURL) got no HTTP answer")
        }
        let status = http.statusCode
        switch status {
        case 200..<300:
            return
        case 410:
            throw DeliveryFailure("\(displayURL) answered 410 Gone: the endpoint is disabled", isPermanent: true)
        case 429, 503:
            let retryAfter = http.value(forHTTPHeaderField: "Retry-After").flatMap {
                Self.retryAfterSeconds($0, now: Date(), longest: longestRetryAfter)
            }
            throw DeliveryFailure("\(displayURL) answered HTTP \(status)", retryAfter: retryAfter)
        default:
            throw DeliveryFailure("\(displayURL) answered HTTP \(status)")
        }
    }

    /// Lets go of the connections once requests under way end. Later deliveries fail.
    func close() {
        closed.withLock { closed in
            guard !closed else { return }
            closed = true
            session.finishTasksAndInvalidate()
        }
    }

    /// Makes the request; cancelling the calling task cancels it.
    private func send(_ request: URLRequest) async throws(DeliveryFailure) -> URLResponse {
        let task = Locked<URLSessionDataTask?>(nil)
        let result: Result<URLResponse, DeliveryFailure> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let once = Locked<CheckedContinuation<Result<URLResponse, DeliveryFailure>, Never>?>(continuation)
                let finish: @Sendable (Result<URLResponse, DeliveryFailure>) -> Void = { result in
                    once.withLock { $0.take() }?.resume(returning: result)
                }
                let displayURL = displayURL
                let started = closed.withLock { closed -> Bool in
                    guard !closed, !Task.isCancelled else { return false }
                    let dataTask = session.dataTask(with: request) { _, response, error in
                        if let error {
                            finish(.failure(DeliveryFailure("POST \(displayURL) failed: \(Self.describe(error))")))
                        } else if let response {
                            finish(.success(response))
                        } else {
                            finish(.failure(DeliveryFailure("POST \(displayURL) got no answer")))
                        }
                    }
                    task.withLock { $0 = dataTask }
                    dataTask.resume()
                    // Cancelled between the check above and storing the task: the
                    // cancellation handler found nothing to cancel, so cancel here.
                    if Task.isCancelled { dataTask.cancel() }
                    return true
                }
                if !started { finish(.failure(DeliveryFailure("POST \(displayURL) not sent: shutting down"))) }
            }
        } onCancel: {
            task.withLock { $0 }?.cancel()
        }
        return try result.get()
    }

    /// Seconds from `now` a `Retry-After` value asks for (`RetryAfter.seconds`), at most
    /// `longest`: a server may ask for less than the schedule's longest step, never more,
    /// so a huge or far-future value cannot park an event for years. `nil` when the value
    /// is neither delay-seconds nor an HTTP date (the schedule applies).
    static func retryAfterSeconds(_ value: String, now: Date, longest: Double) -> Double? {
        RetryAfter.seconds(value, now: now).map { min($0, max(0, longest)) }
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "\(error)" }
        switch error.code {
        case .timedOut: return "no answer within the timeout"
        case .cannotConnectToHost: return "connection refused"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .networkConnectionLost: return "connection lost"
        case .cancelled: return "cancelled"
        default: return "URL error \(error.code.rawValue)"
        }
    }
}
