import Foundation
import JuiceMakerCore
import SQLiteStore

/// Checks a parsed config document strictly and turns it into a `JuiceConfig`.
///
/// An unknown key, a wrong type, an unknown subscriber `type` or a value out of range
/// throws a `ConfigurationError` naming the file, the JSON path and what was
/// expected. Subscriber keys are checked against the plugin's `configurationKeys`;
/// the plugin's own value checks run later, when it is built.
struct ConfigValidator: Sendable {
    let registry: PluginRegistry
    let source: ConfigSource
    let environment: [String: String]

    /// Parses, substitutes and checks `text`.
    func load(_ text: String) throws(ConfigurationError) -> JuiceConfig {
        let document: ConfigValue
        do {
            document = try JSONReader.parse(text)
        } catch {
            throw ConfigurationError(file: source.file, path: "", problem: error.description)
        }
        let (resolved, substituted) = try EnvironmentSubstitution(environment: environment, file: source.file).apply(document)
        do {
            return try validate(resolved, substituted: substituted)
        } catch {
            throw substituted.apply(to: error)
        }
    }

    private func fail(_ path: String, _ problem: String) -> ConfigurationError {
        ConfigurationError(file: source.file, path: path, problem: problem)
    }

    private func members(_ value: ConfigValue, at path: String, allowed: [String]) throws(ConfigurationError) -> [(key: String, value: ConfigValue)] {
        guard case .object(let members) = value else {
            throw fail(path, "expected an object, found \(value.typeDescription)")
        }
        for member in members where !allowed.contains(member.key) {
            let child = path.isEmpty ? member.key : "\(path).\(member.key)"
            throw fail(child, "unknown key \"\(member.key)\"; expected one of \(allowed.joined(separator: ", "))")
        }
        return members
    }

    private func string(_ value: ConfigValue, at path: String, oneOf allowed: [String]? = nil) throws(ConfigurationError) -> String {
        guard case .string(let text) = value else { throw fail(path, "expected a string, found \(value.typeDescription)") }
        if let allowed, !allowed.contains(text) {
            throw fail(path, "expected one of \(allowed.joined(separator: ", ")), found \"\(text)\"")
        }
        return text
    }

    private func validate(_ document: ConfigValue, substituted: Redaction) throws(ConfigurationError) -> JuiceConfig {
        var language: Language?
        var initialStock = Stock.defaultInitialQuantity
        var storePath: String?
        var durability = Durability.full
        var flush = JuiceConfig.defaultFlushDeadlineSeconds
        var subscribers: [SubscriberEntry]?
        for (key, value) in try members(document, at: "", allowed: ConfigKeys.topLevel) {
            switch key {
            case "$schema":
                _ = try string(value, at: key)
            case "language":
                let text = try string(value, at: key, oneOf: ["auto", "ko", "en"])
                language = Language(rawValue: text)
            case "initialStock":
                initialStock = try integer(value, at: key, in: 0...Stock.maximumQuantity)
            case "flushDeadlineSeconds":
                guard case .number(let seconds) = value, (0...60).contains(seconds) else {
                    throw fail(key, "expected a number of seconds from 0 to 60, found \(describe(value))")
                }
                flush = seconds
            case "store":
                for (storeKey, storeValue) in try members(value, at: key, allowed: ConfigKeys.store) {
                    let path = "store.\(storeKey)"
                    if storeKey == "path" {
                        let text = try string(storeValue, at: path)
                        guard !text.isEmpty else { throw fail(path, "expected a file path, found an empty string") }
                        storePath = absolute(text)
                    } else {
                        let allowed = Durability.allCases.map(\.rawValue)
                        durability = Durability(rawValue: try string(storeValue, at: path, oneOf: allowed)) ?? .full
                    }
                }
            default:
                subscribers = try validateSubscribers(value)
            }
        }
        // No `subscribers` key: the built-in ones (logger and notifier); `[]` means none.
        let entries: [SubscriberEntry]
        if let subscribers { entries = subscribers } else { entries = try validateSubscribers(BuiltInConfig.subscribers) }
        return JuiceConfig(
            source: source, language: language, initialStock: initialStock, storePath: storePath,
            durability: durability, flushDeadlineSeconds: flush, subscribers: entries, substituted: substituted)
    }

    private func describe(_ value: ConfigValue) -> String {
        if case .number(let number) = value { return JSONWriter.compact(.number(number)) }
        return value.typeDescription
    }

    private func integer(_ value: ConfigValue, at path: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard case .number(let number) = value, number.rounded() == number,
              let whole = Int(exactly: number), range.contains(whole)
        else { throw fail(path, "expected a whole number from \(range.lowerBound) to \(range.upperBound), found \(describe(value))") }
        return whole
    }

    private func validateSubscribers(_ value: ConfigValue) throws(ConfigurationError) -> [SubscriberEntry] {
        guard case .array(let items) = value else {
            throw fail("subscribers", "expected an array of subscriber objects, found \(value.typeDescription)")
        }
        var entries: [SubscriberEntry] = []
        for (index, item) in items.enumerated() {
            let path = "subscribers[\(index)]"
            guard case .object(let members) = item else { throw fail(path, "expected an object, found \(item.typeDescription)") }
            guard let typeValue = members.first(where: { $0.key == "type" })?.value else {
                throw fail(path, "missing \"type\"; expected one of \(registry.typeNames.joined(separator: ", "))")
            }
            let type = try string(typeValue, at: "\(path).type")
            guard let plugin = registry.plugin(named: type) else {
                throw fail("\(path).type", "unknown subscriber type \"\(type)\"; known types: \(registry.typeNames.joined(separator: ", "))")
            }
            let allowed = ConfigKeys.commonSubscriber + plugin.configurationKeys
            _ = try self.members(item, at: path, allowed: allowed)
            // The first subscriber of a type is named after it, later ones get their
            // ordinal (`logger`, `logger-2`), so adding one never renames another.
            let ordinal = entries.filter { $0.type == type }.count + 1
            var name = ordinal == 1 ? type : "\(type)-\(ordinal)"
            if let nameValue = members.first(where: { $0.key == "name" })?.value {
                name = try string(nameValue, at: "\(path).name")
                guard !name.isEmpty else { throw fail("\(path).name", "expected a non-empty name") }
            }
            if let clash = entries.first(where: { $0.name == name }) {
                throw fail("\(path).name", "the name \"\(name)\" is already used by \(clash.path); names must be unique")
            }
            var enabled = true
            if let enabledValue = members.first(where: { $0.key == "enabled" })?.value {
                guard case .bool(let flag) = enabledValue else {
                    throw fail("\(path).enabled", "expected true or false, found \(enabledValue.typeDescription)")
                }
                enabled = flag
            }
            let own = members.filter { !ConfigKeys.commonSubscriber.contains($0.key) }
            entries.append(SubscriberEntry(
                path: path, type: type, name: name, enabled: enabled,
                configuration: PluginConfiguration(path: path, values: own)))
        }
        return entries
    }

    /// A relative `store.path` is relative to the config file's directory.
    private func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path == "~" || path.hasPrefix("~/"), let home = environment["HOME"] {
            return (home as NSString).appendingPathComponent(String(path.dropFirst(min(2, path.count))))
        }
        let base = source.file.map { ($0 as NSString).deletingLastPathComponent } ?? FileManager.default.currentDirectoryPath
        return ((base as NSString).appendingPathComponent(path) as NSString).standardizingPath
    }
}
