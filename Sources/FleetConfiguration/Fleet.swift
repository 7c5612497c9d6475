#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// The fleet's shared vocabulary: machine names, the subject scheme, and the `nats`
/// subscriber's keys. The NATS plugin reads its section through these declarations,
/// and the config is checked and the schema printed without loading libnats.
package enum Fleet {
    /// The config `type` of the NATS publisher.
    package static let subscriberType = "nats"
    /// The first token of every subject unless `subjectPrefix` says otherwise.
    package static let defaultSubjectPrefix = "juicemaker"
    /// The stream unless `stream` says otherwise.
    package static let defaultStream = "JUICEMAKER"
    /// How long one publish (until its PubAck) may take unless `timeoutSeconds` says otherwise.
    package static let defaultTimeoutSeconds = 5.0

    // MARK: Keys of a `nats` subscriber

    package static let urlKey = ConfigurationKey(
        "url", .string([.nonEmpty("url")]), required: true, secrecy: .harmless,
        description: "The NATS server, nats://host:port; several comma-separated for a cluster.")
    package static let subjectPrefixKey = ConfigurationKey(
        "subjectPrefix", .string([.nonEmpty("subjectPrefix")]), default: .string(defaultSubjectPrefix), secrecy: .harmless,
        description: "First token(s) of every subject: <prefix>.<machine>.<kind>.<subject>.")
    package static let streamKey = ConfigurationKey(
        "stream", .string([.nonEmpty("stream")]), default: .string(defaultStream), secrecy: .harmless,
        description: "The JetStream stream; created when missing (subjects <prefix>.>, file storage).")
    package static let replicasKey = ConfigurationKey(
        "replicas", .integer(1...5), default: .number(1),
        description: "Replicas of a stream this subscriber creates (3 on a 3-node cluster).")
    package static let credentialsKey = ConfigurationKey(
        "credentials", .string([.nonEmpty("credentials"), .noNUL]), secrecy: .harmless,
        description:
            "A NATS .creds file (user JWT and seed); a relative path is relative to the store's directory. Its path is shown, never its content."
    )
    package static let tlsCAKey = ConfigurationKey(
        "tlsCA", .string([.nonEmpty("tlsCA"), .noNUL]), secrecy: .harmless,
        description: "A PEM file of the certificate authorities the NATS server's certificate is checked against; means TLS.")
    package static let tlsCertificateKey = ConfigurationKey(
        "tlsCertificate", .string([.nonEmpty("tlsCertificate"), .noNUL]), secrecy: .harmless,
        description: "A PEM client certificate for a server that asks for one (with tlsKey); means TLS.")
    package static let tlsKeyKey = ConfigurationKey(
        "tlsKey", .string([.nonEmpty("tlsKey"), .noNUL]), secrecy: .harmless,
        description: "The PEM private key of tlsCertificate; its path is shown, never its content.")
    package static let tokenKey = ConfigurationKey(
        "token", .string([.nonEmpty("token")]),
        description: "An authentication token, usually \"${NATS_TOKEN}\". Never printed.")
    package static let eventsKey = ConfigurationKey.events("Only these kinds of event are published; default all.")
    package static let timeoutKey = ConfigurationKey(
        "timeoutSeconds", .number(minimum: 0.1, maximum: 300, unit: "seconds"), default: .number(defaultTimeoutSeconds),
        description: "How long connecting, or one publish until its PubAck, may take.")
    package static let maxAgeKey = ConfigurationKey(
        "maxAge", .number(minimum: 1, maximum: 3_153_600_000, unit: "seconds"),
        description: "NATS max_age of the stream: seconds a message is kept (604800 is 7 days); default: for good.")
    package static let maxBytesKey = ConfigurationKey(
        "maxBytes", .integer(1...9_007_199_254_740_992),
        description: "NATS max_bytes of the stream: the most bytes it keeps; default: no limit.")
    package static let discardKey = ConfigurationKey(
        "discard", .oneOf(["old", "new"]),
        description: "NATS discard policy at a limit: old drops the oldest messages, new refuses new ones (publishing retries); default old.")
    /// Every key of a `nats` subscriber, in the order the schema lists them.
    package static let subscriberKeys = [
        urlKey, subjectPrefixKey, streamKey, replicasKey, maxAgeKey, maxBytesKey, discardKey, credentialsKey, tokenKey, tlsCAKey,
        tlsCertificateKey, tlsKeyKey, eventsKey, timeoutKey, ConfigurationKey.retrySchedule,
    ]

    /// `fleet.url`: like `url`, but optional (`--nats` may give it).
    package static let readerURLKey = ConfigurationKey(
        "url", .string([.nonEmpty("url")]), secrecy: .harmless,
        description: "The NATS server juice fleet reads, nats://host:port; several comma-separated for a cluster.")
    /// The ack wait of `juice fleet deliver`'s consumers unless `ackWait` says otherwise (NATS's default).
    package static let defaultAckWaitSeconds = 30.0
    /// The `max_ack_pending` of `juice fleet deliver`'s consumers unless `maxAckPending` says otherwise (NATS's default).
    package static let defaultMaxAckPending = 1000
    package static let ackWaitKey = ConfigurationKey(
        "ackWait", .number(minimum: 1, maximum: 86_400, unit: "seconds"), default: .number(defaultAckWaitSeconds),
        description: "NATS ack_wait of juice fleet deliver's consumers: how long a killed deliverer's messages wait before they are sent again.")
    package static let maxAckPendingKey = ConfigurationKey(
        "maxAckPending", .integer(1...100_000), default: .number(Double(defaultMaxAckPending)),
        description: "NATS max_ack_pending of juice fleet deliver's consumers: messages out and not yet acknowledged, at most.")
    package static let deliverPolicyKey = ConfigurationKey(
        "deliverPolicy", .oneOf(["all", "new"]), default: .string("all"),
        description: "Where a new consumer of juice fleet deliver starts: all (the stream's whole history) or new (messages from then on).")
    /// The largest message a fleet reader takes unless `maxMessageBytes` says otherwise:
    /// a machine's event is well under 1 KiB.
    package static let defaultMaxMessageBytes = 65_536
    package static let maxMessageBytesKey = ConfigurationKey(
        "maxMessageBytes", .integer(1_024...67_108_864), default: .number(Double(defaultMaxMessageBytes)),
        description: "The largest stream message juice fleet takes, in bytes; a larger one is skipped (a dead letter for fleet deliver).")
    /// The keys of the top-level `fleet` section.
    package static let readerKeys = [
        readerURLKey, subjectPrefixKey, streamKey, credentialsKey, tokenKey, timeoutKey, ackWaitKey, maxAckPendingKey, deliverPolicyKey,
        maxMessageBytesKey, tlsCAKey, tlsCertificateKey, tlsKeyKey,
    ]

    // MARK: TLS

    /// A section's TLS files (`tlsCA`, `tlsCertificate` with `tlsKey`), made absolute (a
    /// relative path is relative to `directory`, the store's) and checked readable;
    /// `nil` when none is set. A certificate without its key, or a key without its
    /// certificate, is refused.
    package static func tlsFiles(of section: PluginConfiguration, relativeTo directory: String) throws(ConfigurationError) -> TLSFiles? {
        if (try section.string(tlsCertificateKey) == nil) != (try section.string(tlsKeyKey) == nil) {
            let certificate = try section.string(tlsCertificateKey)
            let (given, missing) = certificate == nil ? (tlsKeyKey.name, tlsCertificateKey.name) : (tlsCertificateKey.name, tlsKeyKey.name)
            throw ConfigurationError(
                path: ConfigurationKey.path(section.path, missing),
                plugin: PluginMessage(
                    english: "\(given) is set without \(missing): a client certificate needs both (PEM files)",
                    korean: "\(missing) 없이 \(given)만 있습니다. 클라이언트 인증서에는 둘 다 필요합니다(PEM 파일)"))
        }
        let ca = try readable(tlsCAKey, of: section, relativeTo: directory)
        let certificate = try readable(tlsCertificateKey, of: section, relativeTo: directory)
        let key = try readable(tlsKeyKey, of: section, relativeTo: directory)
        guard ca != nil || certificate != nil else { return nil }
        return TLSFiles(certificateAuthorities: ca, certificate: certificate, key: key)
    }

    /// A section's `credentials` (a NATS `.creds` file), made absolute (a relative path
    /// is relative to `directory`, the store's) and read through the file gate (`file`);
    /// `nil` when not set.
    package static func credentialsFile(of section: PluginConfiguration, relativeTo directory: String) throws(ConfigurationError) -> String? {
        try file(
            credentialsKey, of: section, relativeTo: directory, marker: "-----BEGIN NATS USER JWT-----",
            kind: PluginMessage(english: "a NATS .creds file: nsc generate creds", korean: "NATS .creds 파일: nsc generate creds"))
    }

    /// `key` of `section` made absolute and read through the file gate: a TLS file in
    /// PEM (it holds a `-----BEGIN ` line); `nil` when not set.
    private static func readable(
        _ key: ConfigurationKey, of section: PluginConfiguration, relativeTo directory: String
    ) throws(ConfigurationError) -> String? {
        try file(key, of: section, relativeTo: directory, marker: "-----BEGIN ", kind: PluginMessage(english: "a PEM file", korean: "PEM 파일"))
    }

    /// `key` of `section` made absolute (a relative path is relative to `directory`) and
    /// read through the file gate: a regular file this process can read (never waited
    /// on: a FIFO or a device there is refused) that holds `marker`, as a file of `kind`
    /// does; `nil` when not set. Every refusal names the key.
    private static func file(
        _ key: ConfigurationKey, of section: PluginConfiguration, relativeTo directory: String, marker: String, kind: PluginMessage
    ) throws(ConfigurationError) -> String? {
        guard let file = try section.string(key) else { return nil }
        let absolute = file.hasPrefix("/") ? file : PathText.join(directory, file)
        let path = ConfigurationKey.path(section.path, key.name)
        let contents: [UInt8]
        do throws(FileRefusal) {
            contents = try FileGate.contents(of: absolute, limit: 1 << 20)
        } catch {
            let why = error.message
            throw ConfigurationError(
                path: path,
                plugin: PluginMessage(
                    english: "cannot read \(absolute): \(why.english) (\(kind.english); a relative path is relative to the store's directory)",
                    korean: "\(absolute)을(를) 읽을 수 없습니다: \(why.korean) (\(kind.korean). 상대 경로는 저장소 디렉터리 기준)"))
        }
        guard String(decoding: contents, as: UTF8.self).containsText(marker) else {
            throw ConfigurationError(
                path: path,
                plugin: PluginMessage(
                    english: "\(absolute) is not \(kind.english) (no \(marker) line)",
                    korean: "\(absolute)은(는) \(kind.korean)이(가) 아닙니다(\(marker) 줄 없음)"))
        }
        return absolute
    }

    // MARK: Names and subjects

    /// `value` if `isValid` takes it; otherwise a config error at `path` that says what
    /// was `expected`.
    /// A section's `subjectPrefix` (the `nats` subscriber's or the `fleet` section's),
    /// checked: dot-separated tokens of letters, digits, `-` and `_`.
    package static func subjectPrefix(of section: PluginConfiguration) throws(ConfigurationError) -> String {
        try checked(subjectPrefixKey, in: section, default: defaultSubjectPrefix, isSubjectPrefix, expected: subjectPrefixExpected)
    }

    /// A section's `stream`, checked: a JetStream stream name.
    package static func stream(of section: PluginConfiguration) throws(ConfigurationError) -> String {
        try checked(streamKey, in: section, default: defaultStream, isStreamName, expected: streamExpected)
    }

    private static let subjectPrefixExpected = PluginMessage(
        english: "expected subject tokens of letters, digits, - and _ separated by dots (juicemaker, acme.juice)",
        korean: "글자, 숫자, -, _로 된 주제 토큰을 점으로 이어야 합니다(juicemaker, acme.juice)")
    private static let streamExpected = PluginMessage(
        english: "expected a stream name without spaces, '.', '*', '>', '/' or '\\' (JUICEMAKER)",
        korean: "공백, '.', '*', '>', '/', '\\'가 없는 스트림 이름이어야 합니다(JUICEMAKER)")

    /// The string `key` of `section` (its default when absent), refused with `expected` unless `isValid`.
    private static func checked(
        _ key: ConfigurationKey, in section: PluginConfiguration, default value: String, _ isValid: (String) -> Bool,
        expected: PluginMessage
    ) throws(ConfigurationError) -> String {
        try checked(section.string(key) ?? value, isValid, at: ConfigurationKey.path(section.path, key.name), expected: expected)
    }

    package static func checked(
        _ value: String, _ isValid: (String) -> Bool, at path: String, expected: PluginMessage
    ) throws(ConfigurationError) -> String {
        guard isValid(value) else { throw ConfigurationError(path: path, plugin: expected) }
        return value
    }

    /// Whether `name` is one NATS subject token as a machine name: letters, digits,
    /// `-` and `_` only, at least one.
    package static func isMachineName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.unicodeScalars.allSatisfy { isTokenScalar($0) }
    }

    private static func isTokenScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_": true
        default: false
        }
    }

    /// The host name made a machine name: every other character becomes `-`, the domain
    /// is dropped, at most 64 characters; `juice` if nothing is left.
    package static func machineName(fromHost host: String) -> String {
        let first = host.split(separator: ".").first.map(String.init) ?? ""
        // Scalar by scalar (each becomes one ASCII character), not through a generic
        // append (start-up rule "no conformance lookups at start").
        var safe = ""
        for scalar in first.unicodeScalars.prefix(64) { safe.unicodeScalars.append(isTokenScalar(scalar) ? scalar : "-") }
        return safe.isEmpty || safe.allSatisfy({ $0 == "-" }) ? "juice" : safe
    }

    /// This machine's host name, made safe.
    /// (`gethostname`, not `ProcessInfo.hostName`, which may ask DNS on every command.)
    package static let defaultMachineName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "juice" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return machineName(fromHost: String(decoding: bytes, as: UTF8.self))
    }()

    /// The CloudEvents `source` of a machine's events.
    package static func source(machine: String) -> String { "/juice-maker/\(machine)" }

    /// The machine a `source` names (`/juice-maker/shop-1` → `shop-1`); `nil` for another source.
    package static func machine(fromSource source: String) -> String? {
        let prefix = "/juice-maker/"
        guard source.hasPrefix(prefix) else { return nil }
        let name = String(source.dropFirst(prefix.count))
        return isMachineName(name) ? name : nil
    }

    /// Whether `prefix` is one or more subject tokens separated by dots.
    package static func isSubjectPrefix(_ prefix: String) -> Bool {
        let tokens = prefix.split(separator: ".", omittingEmptySubsequences: false)
        return !tokens.isEmpty && tokens.allSatisfy { isMachineName(String($0)) }
    }

    /// Whether `name` can name a stream or a consumer: printable, no space, `.`, `*`, `>`, `/` or `\`.
    package static func isStreamName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255
            && name.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !".*>/\\".unicodeScalars.contains($0) }
    }

    /// The name `juice fleet deliver` keeps a subscriber's retry state and dead letters
    /// under in the local store: `<subscriber>@fleet`, apart from the same subscriber's
    /// own delivery of the local journal (whose sequences are the journal's, not the
    /// stream's).
    package static func bookkeepingName(_ subscriber: String) -> String { subscriber + bookkeepingSuffix }

    /// The subscriber a `bookkeepingName` belongs to, or `nil` for another name.
    package static func subscriber(fromBookkeepingName name: String) -> String? {
        name.hasSuffix(bookkeepingSuffix) ? String(name.dropLast(bookkeepingSuffix.count)) : nil
    }

    private static let bookkeepingSuffix = "@fleet"

    /// A subscriber's name as a durable consumer's name (`webhook-2`, `central_hook`): other characters become `_`.
    package static func consumerName(_ subscriber: String) -> String {
        String(
            String.UnicodeScalarView(
                subscriber.unicodeScalars.map { scalar -> Unicode.Scalar in
                    isTokenScalar(scalar) ? scalar : "_"
                }))
    }

    /// The kind's subject tokens: `juicemaker.juice.made` → `juice.made`.
    package static func kindTokens(_ kind: EventKind) -> String {
        String(kind.cloudEventType.dropFirst("juicemaker.".count))
    }

    /// The subject an event is published to: `<prefix>.<machine>.<kind>.<subject>`, e.g.
    /// `juicemaker.shop-1.stock.changed.kiwi`.
    package static func subject(prefix: String, machine: String, event: JuiceMakerEvent) -> String {
        "\(prefix).\(machine).\(kindTokens(event.kind)).\(eventSubject(event))"
    }

    /// The CloudEvents `subject` of an event: the fruit or the juice.
    package static func eventSubject(_ event: JuiceMakerEvent) -> String {
        switch event {
        case let .stockChanged(fruit, _, _, _): fruit.id
        case let .juiceMade(juice, _, _), let .orderFailed(juice, _, _): juice.id
        }
    }

    /// The filter of every machine's events of `kind` (or all kinds), of one machine or all.
    package static func filter(prefix: String, machine: String?, kind: EventKind?) -> String {
        let machineToken = machine ?? "*"
        guard let kind else { return "\(prefix).\(machineToken).>" }
        return "\(prefix).\(machineToken).\(kindTokens(kind)).*"
    }

    /// The parts of a `nats` URL list: each `nats://host:port` (or `host:port`); `nil`
    /// names the first that is not one.
    package static func servers(_ text: String) -> Result<[String], BadURL> {
        var servers: [String] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = String(part.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            let full = item.containsText("://") ? item : "nats://\(item)"
            guard let url = ParsedURL(full), ["nats", "tls"].contains(url.scheme.lowercased()), let host = url.decodedHost,
                !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil
            else { return .failure(BadURL(item: item)) }
            if let port = url.port, !(Int(port).map { (1...65535).contains($0) } ?? false) { return .failure(BadURL(item: item)) }
            servers.append(full)
        }
        return servers.isEmpty ? .failure(BadURL(item: text)) : .success(servers)
    }

    /// The servers of `section`'s `url` (`key`: `urlKey` for a `nats` subscriber,
    /// `readerURLKey` for `fleet`), checked by `servers(_:)`; nil when it is absent.
    /// The one check of a NATS URL in a config: `config check` runs it for the `fleet`
    /// section, the `nats` subscriber when it is built.
    package static func servers(of section: PluginConfiguration, key: ConfigurationKey) throws(ConfigurationError) -> [String]? {
        guard let url = try section.string(key) else { return nil }
        switch servers(url) {
        case .success(let list): return list
        case .failure(let bad): throw badURL(bad, at: ConfigurationKey.path(section.path, key.name))
        }
    }

    /// A `url` item that is not `nats://host:port`.
    package struct BadURL: Error, Sendable {
        package let item: String
    }

    /// The error for a bad `url` at `path`.
    package static func badURL(_ bad: BadURL, at path: String) -> ConfigurationError {
        ConfigurationError(
            path: path,
            plugin: PluginMessage(
                english: "expected nats://host:port, several comma-separated for a cluster; \"\(URLCredentials.redacted(bad.item))\" is not one",
                korean: "nats://host:port 형식이어야 합니다(클러스터는 쉼표로 여러 개). \"\(URLCredentials.redacted(bad.item))\"은(는) 아닙니다"))
    }
}
