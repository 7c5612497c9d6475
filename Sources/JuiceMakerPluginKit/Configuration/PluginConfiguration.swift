import JuiceJSON
import JuiceMakerCore

/// One plugin's section of the config, read through the plugin's declarations.
///
/// The host has already checked every key against the plugin's `configuration`
/// (unknown keys, types, ranges, required keys), for enabled and disabled subscribers
/// alike; the accessors check again (a plugin built by hand, in a test, gets the same
/// errors) and return the declared default when the key is absent.
public struct PluginConfiguration: Sendable {
    /// Where the section is (`subscribers[2]`).
    public let path: String
    /// The section's members, in file order.
    public let values: [JSONMember]

    public init(path: String, values: [JSONMember]) {
        self.path = path
        self.values = values
    }

    public subscript(key: String) -> JSONValue? {
        values.first { $0.key == key }?.value
    }

    /// Checks the whole section against `keys`. `skipping`: paths whose value is unknown.
    package func check(against keys: [ConfigurationKey], skipping: Set<String> = []) throws(ConfigurationError) {
        try ConfigurationKey.check(values, against: keys, at: path, skipping: skipping)
    }

    /// The value of `key`, checked against its declaration; the declared default when
    /// absent; an error when absent and required.
    public func value(_ key: ConfigurationKey) throws(ConfigurationError) -> JSONValue? {
        guard let value = self[key.name] else {
            if key.isRequired { throw key.missing(in: path) }
            return key.defaultValue
        }
        try key.check(value, at: ConfigurationKey.path(path, key.name))
        return value
    }

    private func mismatch(_ key: ConfigurationKey, _ value: JSONValue) -> ConfigurationError {
        ConfigurationError(
            path: ConfigurationKey.path(path, key.name), reason: .wrongType(expected: key.expectation, found: value.kind))
    }

    public func string(_ key: ConfigurationKey) throws(ConfigurationError) -> String? {
        switch try value(key) {
        case nil: return nil
        case .string(let text)?: return text
        case let other?: throw mismatch(key, other)
        }
    }

    public func bool(_ key: ConfigurationKey) throws(ConfigurationError) -> Bool? {
        switch try value(key) {
        case nil: return nil
        case .bool(let flag)?: return flag
        case let other?: throw mismatch(key, other)
        }
    }

    /// A number as the nearest `Double` (`JSONValue.doubleValue`).
    public func number(_ key: ConfigurationKey) throws(ConfigurationError) -> Double? {
        guard let value = try value(key) else { return nil }
        guard let number = value.doubleValue else { throw mismatch(key, value) }
        return number
    }

    public func strings(_ key: ConfigurationKey) throws(ConfigurationError) -> [String]? {
        try items(key) { if case .string(let text) = $0 { text } else { nil } }
    }

    public func numbers(_ key: ConfigurationKey) throws(ConfigurationError) -> [Double]? {
        try items(key) { $0.doubleValue }
    }

    /// An array whose every item `extract` accepts.
    private func items<Item>(_ key: ConfigurationKey, _ extract: (JSONValue) -> Item?) throws(ConfigurationError) -> [Item]? {
        switch try value(key) {
        case nil: return nil
        case .array(let values)?:
            var result: [Item] = []
            for value in values {
                guard let item = extract(value) else { throw mismatch(key, value) }
                result.append(item)
            }
            return result
        case let other?: throw mismatch(key, other)
        }
    }

    /// An object of strings, in file order.
    public func stringPairs(_ key: ConfigurationKey) throws(ConfigurationError) -> [(key: String, value: String)]? {
        switch try value(key) {
        case nil: return nil
        case .object(let members)?:
            var result: [(key: String, value: String)] = []
            for member in members {
                guard case .string(let text) = member.value else { throw mismatch(key, member.value) }
                result.append((member.key, text))
            }
            return result
        case let other?: throw mismatch(key, other)
        }
    }

    /// An `events` filter: names of `EventKind`s (declare it with `ConfigurationKey.events`).
    public func eventKinds(_ key: ConfigurationKey) throws(ConfigurationError) -> Set<EventKind>? {
        guard let names = try strings(key) else { return nil }
        return Set(names.compactMap(EventKind.init(name:)))
    }
}

extension ConfigurationKey {
    /// The `events` key every plugin that filters by kind declares: kinds by name
    /// (`juiceMade`) or CloudEvents type (`juicemaker.juice.made`), each once.
    public static func events(_ description: String = "Only these kinds of event; default all.") -> ConfigurationKey {
        let names = EventKind.allCases.map(\.rawValue) + EventKind.allCases.map(\.cloudEventType)
        return ConfigurationKey("events", .list(.oneOf(names), unique: true), description: description)
    }
}
