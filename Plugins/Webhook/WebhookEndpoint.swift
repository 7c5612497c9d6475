import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JuiceMakerCore
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
            throw DeliveryFailure(PluginMessage(
                english: "POST \(displayURL) got no HTTP answer", korean: "POST \(displayURL)에 HTTP 응답이 없습니다"))
        }
        let status = http.statusCode
        switch status {
        case 200..<300:
            return
        case 410:
            throw DeliveryFailure(PluginMessage(
                english: "\(displayURL) answered 410 Gone: the endpoint is disabled",
                korean: "\(displayURL)이(가) 410 Gone으로 답했습니다. 엔드포인트가 꺼졌습니다"), isPermanent: true)
        case 429, 503:
            let retryAfter = http.value(forHTTPHeaderField: "Retry-After").flatMap {
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
                            let why = Self.describe(error)
                            finish(.failure(DeliveryFailure(PluginMessage(
                                english: "POST \(displayURL) failed: \(why.english)",
                                korean: "POST \(displayURL) 실패: \(why.korean)"))))
                        } else if let response {
                            finish(.success(response))
                        } else {
                            finish(.failure(DeliveryFailure(PluginMessage(
                                english: "POST \(displayURL) got no answer", korean: "POST \(displayURL)에 응답이 없습니다"))))
                        }
                    }
                    task.withLock { $0 = dataTask }
                    dataTask.resume()
                    // Cancelled between the check above and storing the task: the
                    // cancellation handler found nothing to cancel, so cancel here.
                    if Task.isCancelled { dataTask.cancel() }
                    return true
                }
                if !started {
                    finish(.failure(DeliveryFailure(PluginMessage(
                        english: "POST \(displayURL) not sent: shutting down", korean: "POST \(displayURL)을(를) 보내지 않았습니다. 종료하는 중입니다"))))
                }
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

    private static func describe(_ error: any Error) -> PluginMessage {
        guard let error = error as? URLError else { return PluginMessage(untranslated: "\(error)") }
        let (english, korean) = switch error.code {
        case .timedOut: ("no answer within the timeout", "제한 시간 안에 응답이 없습니다")
        case .cannotConnectToHost: ("connection refused", "연결이 거부되었습니다")
        case .cannotFindHost, .dnsLookupFailed: ("host not found", "호스트를 찾을 수 없습니다")
        case .networkConnectionLost: ("connection lost", "연결이 끊겼습니다")
        case .cancelled: ("cancelled", "취소되었습니다")
        default: ("URL error \(error.code.rawValue)", "URL 오류 \(error.code.rawValue)")
        }
        return PluginMessage(english: english, korean: korean)
    }
}
