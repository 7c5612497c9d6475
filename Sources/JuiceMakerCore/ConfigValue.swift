/// A JSON value read from a config file, keys kept in file order.
public indirect enum ConfigValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ConfigValue])
    case object([(key: String, value: ConfigValue)])

    public static func == (lhs: ConfigValue, rhs: ConfigValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The value with `transform` applied to it if it is a string.
    public func map(_ transform: (String) -> String) -> ConfigValue {
        if case .string(let text) = self { return .string(transform(text)) }
        return self
    }

    /// The JSON type name, for error messages ("a string", "an array").
    public var typeDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A config value that is wrong. The message names the file, the JSON path
/// (`subscribers[1].level`) and what was expected.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The config file, when known.
    public var file: String?
    /// The JSON path of the offending value (`subscribers[1].level`).
    public let path: String
    /// What was expected and what was found.
    public let problem: String

    public init(file: String? = nil, path: String, problem: String) {
        self.file = file
        self.path = path
        self.problem = problem
    }

    public var description: String {
        let location = [file, path.isEmpty ? nil : path].compactMap { $0 }.joined(separator: ": ")
        return location.isEmpty ? problem : "\(location): \(problem)"
    }
}

/// One plugin's section of the config, with typed, path-reporting accessors.
///
/// The host has already checked that every key is one the plugin declared in
/// `configurationKeys`; accessors check types and values.
public struct PluginConfiguration: Sendable {
    /// Where the section is (`subscribers[2]`).
    public let path: String
    /// The section's keys and values.
    public let values: [(key: String, value: ConfigValue)]

    public init(path: String, values: [(key: String, value: ConfigValue)]) {
        self.path = path
        self.values = values
    }

    public subscript(key: String) -> ConfigValue? {
        values.first { $0.key == key }?.value
    }

    private func error(_ key: String, _ problem: String) -> ConfigurationError {
        ConfigurationError(path: "\(path).\(key)", problem: problem)
    }

    public func string(_ key: String) throws(ConfigurationError) -> String? {
        switch self[key] {
        case nil: return nil
        case .string(let value): return value
        case let other?: throw error(key, "expected a string, found \(other.typeDescription)")
        }
    }

    /// A string that must be one of `allowed`.
    public func string(_ key: String, oneOf allowed: [String]) throws(ConfigurationError) -> String? {
        guard let value = try string(key) else { return nil }
        guard allowed.contains(value) else {
            throw error(key, "expected one of \(allowed.joined(separator: ", ")), found \"\(value)\"")
        }
        return value
    }

    public func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        switch self[key] {
        case nil: return nil
        case .bool(let value): return value
        case let other?: throw error(key, "expected true or false, found \(other.typeDescription)")
        }
    }

    public func number(_ key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
        switch self[key] {
        case nil: return nil
        case .number(let value) where range.contains(value): return value
        case .number(let value): throw error(key, "expected a number from \(range.lowerBound) to \(range.upperBound), found \(value)")
        case let other?: throw error(key, "expected a number, found \(other.typeDescription)")
        }
    }

    public func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        switch self[key] {
        case nil: return nil
        case .number(let value) where value.rounded() == value && range.contains(Int(exactly: value) ?? Int.min):
            return Int(value)
        case .number(let value): throw error(key, "expected a whole number from \(range.lowerBound) to \(range.upperBound), found \(value)")
        case let other?: throw error(key, "expected a whole number, found \(other.typeDescription)")
        }
    }

    public func strings(_ key: String) throws(ConfigurationError) -> [String]? {
        switch self[key] {
        case nil: return nil
        case .array(let items):
            var result: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let value) = item else {
                    throw error("\(key)[\(index)]", "expected a string, found \(item.typeDescription)")
                }
                result.append(value)
            }
            return result
        case let other?: throw error(key, "expected an array of strings, found \(other.typeDescription)")
        }
    }

    /// An `events` filter: names of `EventKind`s.
    public func eventKinds(_ key: String) throws(ConfigurationError) -> Set<EventKind>? {
        guard let names = try strings(key) else { return nil }
        var kinds = Set<EventKind>()
        for (index, name) in names.enumerated() {
            guard let kind = EventKind(name: name) else {
                let allowed = EventKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw error("\(key)[\(index)]", "expected one of \(allowed), found \"\(name)\"")
            }
            kinds.insert(kind)
        }
        return kinds
    }
}
