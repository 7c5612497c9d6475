import FleetConfiguration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import SQLiteStore

/// Checks a parsed config document strictly and turns it into a `JuiceConfig`.
///
/// Every value is checked against its declaration (`ConfigKeys` for the top level and
/// the keys every subscriber has, each plugin's `configuration` for its own): an
/// unknown key, a wrong type, an unknown subscriber `type`, a missing required key or
/// a value out of range throws a `ConfigurationError` naming the file, the JSON path
/// and what was expected. Disabled subscribers are checked the same way; only a
/// `${NAME}` that is not set is let through there (reported by `config check`). The
/// plugin's own further checks run later, when an enabled one is built.
struct ConfigValidator: Sendable {
    let registry: PluginRegistry
    let source: ConfigSource
    let environment: [String: String]

    /// Parses, substitutes and checks `text`.
    func load(_ text: String) throws(ConfigurationError) -> JuiceConfig {
        let document: JSONValue
        do {
            document = try JSONReader.parse(text)
        } catch {
            throw ConfigurationError(file: source.file, path: "", reason: .malformedJSON(line: error.line, column: error.column, error.problem))
        }
        let substitution = try EnvironmentSubstitution(environment: environment, file: source.file)
            .apply(document, lenientUnder: Self.disabledSubscriberPaths(in: document))
        do {
            return try validate(substitution)
        } catch {
            var located = substitution.redaction.apply(to: error)
            located.file = source.file
            throw located
        }
    }

    /// `subscribers[i]` of every entry written `"enabled": false`.
    static func disabledSubscriberPaths(in document: JSONValue) -> [String] {
        guard case .object(let members) = document,
            case .array(let items)? = members.first(where: { $0.key == "subscribers" })?.value
        else { return [] }
        return items.enumerated().compactMap { index, item in
            guard case .object(let fields) = item, fields.first(where: { $0.key == "enabled" })?.value == .bool(false) else { return nil }
            return "subscribers[\(index)]"
        }
    }

    private func validate(_ substitution: EnvironmentSubstitution.Result) throws(ConfigurationError) -> JuiceConfig {
        let document = substitution.value
        guard case .object(let members) = document else {
            throw ConfigurationError(path: "", reason: .wrongType(expected: .anyObject, found: document.kind))
        }
        try ConfigurationKey.check(members, against: ConfigKeys.topLevel(registry), at: "", skipping: ["subscribers"])
        func member(_ key: ConfigurationKey) -> JSONValue? {
            members.first { $0.key == key.name }?.value ?? key.defaultValue
        }
        var storePath: String?
        var durability = Durability.full
        var retentionDays: Int?
        if case .object(let store)? = member(ConfigKeys.store) {
            for member in store {
                switch (member.key, member.value) {
                case (ConfigKeys.storePath.name, .string(let text)): storePath = absolute(text)
                case (ConfigKeys.durability.name, .string(let text)): durability = Durability(rawValue: text) ?? .full
                case (ConfigKeys.retention.name, .string(let text)):
                    guard let days = ConfigKeys.retentionDays(text) else {
                        throw ConfigurationError(
                            path: "store.retention",
                            plugin: PluginMessage(
                                english: "expected a number of days or weeks from 1d to \(ConfigKeys.maximumRetentionDays)d, e.g. 400d or 60w; "
                                    + "found \(ConfigurationType.echo(member.value))",
                                korean: "1d부터 \(ConfigKeys.maximumRetentionDays)d까지의 일 또는 주가 필요합니다(예: 400d, 60w). "
                                    + "받은 값: \(ConfigurationType.echo(member.value))"))
                    }
                    retentionDays = days
                default: break
                }
            }
        }
        let language: Language? = if case .string(let text)? = member(ConfigKeys.language) { Language(rawValue: text) } else { nil }
        let initialStock = member(ConfigKeys.initialStock)?.doubleValue.map { Int($0) } ?? Stock.defaultInitialQuantity
        let flush = member(ConfigKeys.flushDeadlineSeconds)?.doubleValue ?? JuiceConfig.defaultFlushDeadlineSeconds
        let background = if case .bool(let value)? = member(ConfigKeys.backgroundDelivery) { value } else { true }
        var machine = Fleet.defaultMachineName
        if case .string(let text)? = member(ConfigKeys.machine) {
            machine = try Fleet.checked(
                text, Fleet.isMachineName, at: "machine",
                expected: PluginMessage(
                    english: "expected letters, digits, - and _ only (one NATS subject token, at most 64), e.g. shop-1",
                    korean: "글자, 숫자, -, _만 쓸 수 있습니다(NATS 주제 토큰 하나, 64자 이하). 예: shop-1"))
        }
        var fleet: PluginConfiguration?
        if case .object(let fields)? = member(ConfigKeys.fleet) {
            let section = PluginConfiguration(path: "fleet", values: fields)
            // The same check as the `nats` subscriber's `url`.
            _ = try Fleet.servers(of: section, key: Fleet.readerURLKey)
            fleet = section
        }
        // No `subscribers` key: the built-in ones (logger and notifier); `[]` means none.
        let listed = members.first { $0.key == "subscribers" }?.value
        let entries = try validateSubscribers(listed ?? BuiltInConfig.subscribers, unresolved: substitution.unresolvedPaths)
        return JuiceConfig(
            source: source, language: language, initialStock: initialStock, storePath: storePath,
            durability: durability, retentionDays: retentionDays, flushDeadlineSeconds: flush, backgroundDelivery: background, subscribers: entries,
            machine: machine, fleet: fleet,
            members: members, substituted: substitution.redaction, warnings: substitution.unresolved)
    }

    private func validateSubscribers(_ value: JSONValue, unresolved: Set<String>) throws(ConfigurationError) -> [SubscriberEntry] {
        guard case .array(let items) = value else {
            throw ConfigurationError(path: "subscribers", reason: .wrongType(expected: .subscriberList, found: value.kind))
        }
        let common = ConfigKeys.commonSubscriber(registry)
        var entries: [SubscriberEntry] = []
        entries.reserveCapacity(items.count)
        // Counts per type and the path of each name taken: linear in the subscribers.
        var countByType: [String: Int] = [:]
        var pathByName: [String: String] = [:]
        // Unset `${NAME}`s by subscriber (`subscribers[3]`), so each checks only its own.
        var unresolvedBySubscriber: [String: Set<String>] = [:]
        for path in unresolved {
            if let end = path.firstIndex(of: "]") { unresolvedBySubscriber[String(path[...end]), default: []].insert(path) }
        }
        for (index, item) in items.enumerated() {
            let path = "subscribers[\(index)]"
            guard case .object(let members) = item else {
                throw ConfigurationError(path: path, reason: .wrongType(expected: .anyObject, found: item.kind))
            }
            // `type` first: it says which keys the rest may have.
            let typeKey = common[0]
            guard let typeValue = members.first(where: { $0.key == typeKey.name })?.value else { throw typeKey.missing(in: path) }
            try typeKey.check(typeValue, at: "\(path).type")
            guard case .string(let type) = typeValue, let plugin = registry.plugin(named: type) else {
                throw ConfigurationError(
                    path: "\(path).type", reason: .notAllowed(value: ConfigurationType.echo(typeValue), expected: typeKey.expectation))
            }
            try ConfigurationKey.check(members, against: common + plugin.configuration, at: path, skipping: unresolvedBySubscriber[path] ?? [])
            // The first subscriber of a type is named after it, later ones get their
            // ordinal (`logger`, `logger-2`), so adding one never renames another.
            let ordinal = countByType[type, default: 0] + 1
            countByType[type] = ordinal
            var name = ordinal == 1 ? type : "\(type)-\(ordinal)"
            if case .string(let written)? = members.first(where: { $0.key == "name" })?.value { name = written }
            if let clash = pathByName[name] {
                throw ConfigurationError(
                    path: "\(path).name", reason: .nameInUse(ConfigurationKey.quoted(name), usedBy: clash))
            }
            pathByName[name] = path
            let enabled = members.first(where: { $0.key == "enabled" })?.value != .bool(false)
            let own = members.filter { member in !common.contains { $0.name == member.key } }
            entries.append(
                SubscriberEntry(
                    path: path, type: type, name: name, enabled: enabled,
                    configuration: PluginConfiguration(path: path, values: own)))
        }
        return entries
    }

    /// A relative `store.path` is relative to the config file's directory.
    private func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path == "~" || path.hasPrefix("~/"), let home = environment["HOME"] {
            return PathText.join(home, String(path.dropFirst(min(2, path.count))))
        }
        let base = source.file.map { PathText.parent(of: $0) } ?? JuiceProcess.currentDirectory()
        return PathText.standardized(PathText.join(base, path))
    }
}
