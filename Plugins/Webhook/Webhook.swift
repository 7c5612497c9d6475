#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore
import JuiceHTTP
import JuiceMakerPluginKit
import JuicePrimitives

/// POSTs each event to an HTTP endpoint, signed, at least once, several at a time (in journal order when `ordered`).
///
/// Config (`type: "webhook"`):
/// - `url` (required): `http://` or `https://`. Plain `http://` to a host other than
///   this machine is allowed but warned about at start.
/// - `secret`: signs every request (see `WebhookSignature`): Standard Webhooks key
///   material, `whsec_<base64>` or the base64 alone, padding optional; usually
///   `"${JUICE_WEBHOOK_SECRET}"`. Never printed, logged or put in an error.
///   Without it requests carry `webhook-id` and `webhook-timestamp` but no signature.
/// - `events`: kinds to send (`["juiceMade", "orderFailed"]`); default all.
/// - `timeoutSeconds`: how long one request may take (default 10, 0.1 to 300).
/// - `retrySchedule`: seconds to wait after each failed attempt (default
///   `RetrySchedule.standard`: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h).
/// - `maxInFlight`: requests out at once, each on a kept connection of its own
///   (default 16, 1 to 256); `ordered: true` sends one at a time, in journal order.
///
/// The host delivers (durably, windowed) to its endpoint: the order path only wakes the
/// host's runner; up to `maxInFlight` requests are out at once, the cursor moves over the
/// acknowledged prefix, and each failed event keeps its own schedule. Each request's body is the event in
/// CloudEvents structured JSON (`Content-Type: application/cloudevents+json`), and its
/// `webhook-id` is the event id, the same on every retry: receivers deduplicate on it.
/// 2xx is success; 410 Gone stops delivery (logged) until `juice subscribers retry`;
/// 429 and 503 with `Retry-After` are retried when asked; anything else, a timeout or
/// a refused connection is retried on the schedule, then kept as a dead letter.
package final class Webhook: DurableDeliveryPlugin {
    /// The config `type` that selects the webhook poster.
    package static let type = "webhook"
    static let urlKey = ConfigurationKey(
        "url", .string([.httpURL]), required: true,
        description: "The endpoint each event is POSTed to (CloudEvents structured JSON). Plain http:// to another machine is warned about.")
    static let secretKey = ConfigurationKey(
        "secret", .string([.nonEmpty("secret")]), secrecy: .secret,
        description:
            "Signs requests (Standard Webhooks): base64 key material, with or without whsec_, padding optional; usually \"${JUICE_WEBHOOK_SECRET}\". Never printed."
    )
    static let eventsKey = ConfigurationKey.events("Only these kinds of event are sent; default all.")
    static let timeoutKey = ConfigurationKey(
        "timeoutSeconds", .number(minimum: 0.1, maximum: 300, unit: "seconds"), default: .number(defaultTimeoutSeconds),
        description: "How long one request may take.")
    /// The keys the webhook reads.
    package static let configuration = [
        urlKey, secretKey, eventsKey, timeoutKey, ConfigurationKey.retrySchedule, ConfigurationKey.maxInFlight, ConfigurationKey.ordered,
    ]
    /// How long one request may take unless `timeoutSeconds` says otherwise.
    package static let defaultTimeoutSeconds = 10.0
    /// A durable plugin, fed from the fleet's stream by the host's runner too, signed
    /// and retried the same way; it warns of plain `http://` to another machine.
    package static let declaration = PluginDeclaration.destination(
        Webhook.self, type: type, configuration: configuration,
        startWarnings: { section in
            guard let text = try? section.string(urlKey), let url = ParsedURL(text) else { return [] }
            return startWarnings(for: url)
        })

    /// The endpoint.
    package let url: ParsedURL
    /// The configured `events` filter; `nil` means every kind.
    package let eventKinds: Set<EventKind>?
    /// How long one request may take, in seconds.
    package let timeoutSeconds: Double
    /// When failed events are tried again.
    package let retrySchedule: RetrySchedule
    /// Whether requests are signed (a `secret` was configured).
    package let isSigned: Bool
    /// Requests in flight at most: `maxInFlight`, or 1 when `ordered`.
    package let window: Int

    private let target: HTTPTarget
    private let signature: WebhookSignature?

    /// Builds the poster from its section. Connects to nothing yet.
    package init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        // The declaration (`.httpURL`, required) has checked the text parses with a host.
        guard let text = try configuration.string(Self.urlKey), let url = ParsedURL(text) else {
            throw Self.urlKey.missing(in: configuration.path)
        }
        self.url = url
        let target: HTTPTarget
        do {
            target = try HTTPTarget(url: url)
        } catch {
            throw ConfigurationError(path: "\(configuration.path).url", plugin: PluginMessage(english: error.english, korean: error.korean))
        }
        var signature: WebhookSignature?
        if let secret = try configuration.string(Self.secretKey) {
            guard let parsed = WebhookSignature(secret: secret) else {
                // Never echo the secret: say what is wrong with it, not what it is.
                let command = "printf 'whsec_%s' \"$(openssl rand -base64 32)\""
                throw ConfigurationError(
                    path: "\(configuration.path).secret",
                    plugin: PluginMessage(
                        english: "expected base64 key material, whsec_ followed by base64 (padding optional), as Standard Webhooks "
                            + "secrets are (the value is not shown); for a new one: \(command)",
                        korean: "base64 키 값이어야 합니다. Standard Webhooks 비밀 값처럼 whsec_ 뒤에 base64를 씁니다(패딩은 "
                            + "생략 가능, 값은 보여 주지 않음). 새로 만들려면: \(command)"))
            }
            signature = parsed
        }
        isSigned = signature != nil
        eventKinds = try configuration.eventKinds(Self.eventsKey)
        timeoutSeconds = try configuration.number(Self.timeoutKey) ?? Self.defaultTimeoutSeconds
        retrySchedule = try configuration.retrySchedule(.retrySchedule) ?? .standard
        window = try configuration.deliveryWindow()
        self.target = target
        self.signature = signature
    }

    /// Whether `url` goes unencrypted over the network: plain http to a host other
    /// than a loopback name or address.
    package var isPlainHTTPOffMachine: Bool { Self.isPlainHTTPOffMachine(url) }

    static func isPlainHTTPOffMachine(_ url: ParsedURL) -> Bool {
        guard url.scheme.lowercased() == "http", let host = url.decodedHost?.lowercased() else { return false }
        return !(host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host.hasPrefix("127."))
    }

    /// The warning for a plain `http://` endpoint on another machine, if any: said at
    /// start, and by `juice config check` before anything runs.
    package var startWarnings: [PluginMessage] { Self.startWarnings(for: url) }

    static func startWarnings(for url: ParsedURL) -> [PluginMessage] {
        guard isPlainHTTPOffMachine(url) else { return [] }
        return [
            PluginMessage(
                english:
                    "warning: \(URLCredentials.redacted(url.string)) is plain http:// to another machine; events travel unencrypted (use https://)",
                korean: "경고: \(URLCredentials.redacted(url.string))은(는) 다른 컴퓨터로 가는 암호화되지 않은 http://입니다. 이벤트가 암호화 없이 전송됩니다(https://를 쓰세요)")
        ]
    }

    /// The events it takes, on its schedule, `maxInFlight` at once.
    package var deliverySettings: DeliverySettings { DeliverySettings(kinds: eventKinds, schedule: retrySchedule, window: window) }

    /// The endpoint, which the host delivers to: its own pool of connections.
    package func makeDestination(for host: PluginHost) throws(PluginError) -> any DurableDestination {
        WebhookEndpoint(
            url: url, target: target, signature: signature, timeout: timeoutSeconds,
            longestRetryAfter: retrySchedule.delays.max() ?? 0, window: window)
    }
}
