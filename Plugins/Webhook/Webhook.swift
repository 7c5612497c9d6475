import JuiceHTTP
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// POSTs each event to an HTTP endpoint, signed, at least once: a durable plugin whose
/// destination is the kit's `HTTPDestination`, and which turns an event into a request.
///
/// Each request's body is the event in CloudEvents structured JSON, its `webhook-id` the
/// event id, the same on every retry (receivers deduplicate on it), signed the Standard
/// Webhooks way when a `secret` is set (`WebhookSignature`). The host delivers (up to
/// `maxInFlight` at once, each failed event on its own schedule, then a dead letter);
/// `HTTPDestination` says what an answer means (2xx accepted, 410 refused for good, 429
/// and 503 retried after their `Retry-After`).
package final class Webhook: DurableDeliveryPlugin {
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
        "timeoutSeconds", .number(minimum: 0.1, maximum: 300, unit: "seconds"), default: .number(10),
        description: "How long one request may take.")
    package static let configuration = [
        urlKey, secretKey, eventsKey, timeoutKey, ConfigurationKey.retrySchedule, ConfigurationKey.maxInFlight, ConfigurationKey.ordered,
    ]
    /// Fed from the fleet's stream by the host's runner too; warns of plain `http://` to another machine.
    package static let declaration = PluginDeclaration.destination(
        Webhook.self, type: type, configuration: configuration,
        startWarnings: { section in
            guard let text = try? section.string(urlKey), let url = ParsedURL(text) else { return [] }
            return startWarnings(for: url)
        })

    package let url: ParsedURL
    package let deliverySettings: DeliverySettings
    private let timeoutSeconds: Double
    private let target: HTTPTarget
    private let signature: WebhookSignature?

    /// Reads and checks the section. Connects to nothing yet.
    package init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        // The declaration (`.httpURL`, required) has checked the text parses with a host.
        guard let text = try configuration.string(Self.urlKey), let url = ParsedURL(text) else {
            throw Self.urlKey.missing(in: configuration.path)
        }
        self.url = url
        do {
            target = try HTTPTarget(url: url)
        } catch {
            throw ConfigurationError(path: "\(configuration.path).url", plugin: PluginMessage(english: error.english, korean: error.korean))
        }
        signature = try configuration.string(Self.secretKey).map { secret throws(ConfigurationError) in
            guard let parsed = WebhookSignature(secret: secret) else {
                throw Self.badSecret(at: configuration.path, masked: secret == ConfigurationSecrecy.mask)
            }
            return parsed
        }
        timeoutSeconds = try configuration.number(Self.timeoutKey) ?? 10
        deliverySettings = DeliverySettings(
            kinds: try configuration.eventKinds(Self.eventsKey), schedule: try configuration.retrySchedule(.retrySchedule) ?? .standard,
            window: try configuration.deliveryWindow())
    }

    /// Never echoes the secret: says what is wrong with it, not what it is.
    /// `masked`: the value is `***`, what `juice config show` prints for the secret, so
    /// the config was copied from its output.
    private static func badSecret(at path: String, masked: Bool) -> ConfigurationError {
        let command = "printf 'whsec_%s' \"$(openssl rand -base64 32)\""
        let copied =
            masked
            ? (
                " *** is how juice config show prints a secret: write the secret, or its ${NAME}, back;",
                " ***는 juice config show가 비밀 값을 보여 주는 방식이니 비밀 값이나 그 ${NAME}을 다시 쓰세요."
            )
            : ("", "")
        return ConfigurationError(
            path: "\(path).secret",
            plugin: PluginMessage(
                english: "expected base64 key material, whsec_ followed by base64 (padding optional), as Standard Webhooks "
                    + "secrets are (the value is not shown);\(copied.0) for a new one: \(command)",
                korean: "base64 키 값이어야 합니다. Standard Webhooks 비밀 값처럼 whsec_ 뒤에 base64를 씁니다(패딩은 "
                    + "생략 가능, 값은 보여 주지 않음).\(copied.1) 새로 만들려면: \(command)"))
    }

    /// Whether `url` goes unencrypted over the network: plain http to a host other than
    /// a loopback name or address.
    package var isPlainHTTPOffMachine: Bool { Self.isPlainHTTPOffMachine(url) }

    static func isPlainHTTPOffMachine(_ url: ParsedURL) -> Bool {
        guard url.scheme.lowercased() == "http", let host = url.decodedHost?.lowercased() else { return false }
        return !(host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host.hasPrefix("127."))
    }

    /// The warning for a plain `http://` endpoint on another machine, if any.
    package var startWarnings: [PluginMessage] { Self.startWarnings(for: url) }

    static func startWarnings(for url: ParsedURL) -> [PluginMessage] {
        guard isPlainHTTPOffMachine(url) else { return [] }
        let shown = URLCredentials.redacted(url.string)
        return [
            PluginMessage(
                english: "warning: \(shown) is plain http:// to another machine; events travel unencrypted (use https://)",
                korean: "경고: \(shown)은(는) 다른 컴퓨터로 가는 암호화되지 않은 http://입니다. 이벤트가 암호화 없이 전송됩니다(https://를 쓰세요)")
        ]
    }

    /// The endpoint, with a pool of `maxInFlight` connections of its own.
    package func makeDestination(for host: PluginHost) throws(PluginError) -> any DurableDestination {
        HTTPDestination(
            target: target, displayURL: URLCredentials.redacted(url.string), window: deliverySettings.window, timeout: timeoutSeconds,
            longestRetryAfter: deliverySettings.schedule.delays.max() ?? 0
        ) { [signature] envelope, timestamp in Self.request(for: envelope, timestamp: timestamp, signature: signature) }
    }

    /// The request for `envelope`, signed at `timestamp` (Unix seconds) when there is a key.
    static func request(for envelope: EventEnvelope, timestamp: Int64, signature: WebhookSignature?) -> HTTPRequest {
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
}
