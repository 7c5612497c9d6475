import Foundation

/// One config key, declared once: its name, type (with its range or allowed values),
/// default, description and whether it is required.
///
/// The same declaration checks a value (`ConfigurationType.check`), reads it
/// (`PluginConfiguration`'s accessors return the declared default when the key is
/// absent) and becomes the key's part of the JSON Schema (`juice config schema`), so
/// the checker, the reader and the schema cannot drift apart.
public struct ConfigurationKey: Sendable {
    public let name: String
    public let type: ConfigurationType
    /// The value used when the key is absent, if there is one.
    public let defaultValue: ConfigValue?
    /// One sentence for a person (and the schema's `description`).
    public let description: String
    public let isRequired: Bool
    /// What an error says was expected, when the type's own words are not enough
    /// (`the program and its arguments, e.g. ["/usr/bin/python3", "hook.py"]`).
    public let expected: String?

    public init(
        _ name: String, _ type: ConfigurationType, default defaultValue: ConfigValue? = nil, required: Bool = false,
        expected: String? = nil, description: String
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.description = description
        self.isRequired = required
        self.expected = expected
    }

    /// What a value of this key must be, for error messages.
    public var expectation: String { expected ?? type.expectation }

    /// Checks `value`, found at `path`, against the declaration.
    public func check(_ value: ConfigValue, at path: String) throws(ConfigurationError) {
        try type.check(value, at: path, expected: expectation)
    }

    /// The error for a required key that is absent from the object at `parent`.
    public func missing(in parent: String) -> ConfigurationError {
        ConfigurationError(path: ConfigurationKey.path(parent, name), problem: "missing; expected \(expectation)")
    }

    /// The JSON path of `key` inside the object at `parent`: `parent.key` for a plain
    /// name, `parent["A=B"]` (escaped) for any other.
    public static func path(_ parent: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy {
            $0 == "_" || $0 == "-" || $0 == "$" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        }
        if plain { return parent.isEmpty ? key : "\(parent).\(key)" }
        return "\(parent)[\(quoted(key))]"
    }

    /// `text` as a JSON string: quoted, control characters escaped, so an echoed value
    /// can never move the cursor, clear the screen or end the line.
    public static func quoted(_ text: String) -> String {
        var result = ""
        CloudEventFormat.appendQuoted(text, to: &result)
        return result
    }

    /// Checks an object's members against `keys`: no unknown key, every required key
    /// present, every value as declared. `skipping` are paths whose value is not known
    /// (a `${NAME}` that is not set in a disabled subscriber).
    public static func check(
        _ members: [(key: String, value: ConfigValue)], against keys: [ConfigurationKey], at parent: String,
        skipping: Set<String> = []
    ) throws(ConfigurationError) {
        for member in members where !keys.contains(where: { $0.name == member.key }) {
            throw ConfigurationError(
                path: path(parent, member.key),
                problem: "unknown key \(quoted(member.key)); expected one of \(keys.map(\.name).joined(separator: ", "))")
        }
        for key in keys {
            let child = path(parent, key.name)
            guard let value = members.first(where: { $0.key == key.name })?.value else {
                if key.isRequired { throw key.missing(in: parent) }
                continue
            }
            guard !skipping.contains(where: { $0 == child || $0.hasPrefix(child + ".") || $0.hasPrefix(child + "[") }) else { continue }
            try key.check(value, at: child)
        }
    }
}

/// A rule a string value must follow, with its JSON Schema equivalent.
public enum StringRule: Sendable, Hashable {
    /// Not `""`; the noun names what is missing ("path" gives "empty path").
    case nonEmpty(String)
    /// No U+0000 (a C string, an argument or an environment value would be cut there).
    case noNUL
    /// No `=` (an environment variable's name).
    case noEquals
    /// An `http://` or `https://` URL with a host.
    case httpURL
}

/// The type of a config value, with its range or allowed values.
public indirect enum ConfigurationType: Sendable {
    case string([StringRule])
    /// A string that must be one of these.
    case oneOf([String])
    case boolean
    /// A number from `minimum` (above it when `exclusiveMinimum`) to `maximum`;
    /// `unit` is said in messages ("seconds").
    case number(minimum: Double, exclusiveMinimum: Bool = false, maximum: Double, unit: String? = nil)
    case integer(ClosedRange<Int>)
    /// An array of one type; `unique` refuses an item listed twice.
    case list(ConfigurationType, minimumCount: Int = 0, unique: Bool = false)
    /// An object whose names follow `names` and whose values are all `values`.
    case dictionary(names: [StringRule], values: ConfigurationType)
    /// An object with exactly these keys (no others).
    case object([ConfigurationKey])

    public static let string = ConfigurationType.string([])

    /// What a value must be, for error messages.
    public var expectation: String {
        switch self {
        case .string(let rules):
            if rules.contains(.httpURL) { return "an http:// or https:// URL with a host" }
            for case .nonEmpty(let noun) in rules { return "a non-empty \(noun)" }
            return "a string"
        case .oneOf(let allowed): return "one of \(allowed.joined(separator: ", "))"
        case .boolean: return "true or false"
        case let .number(minimum, exclusive, maximum, unit):
            let what = unit.map { "a number of \($0)" } ?? "a number"
            let low = Self.format(minimum)
            let high = Self.format(maximum)
            return exclusive ? "\(what) above \(low) and at most \(high)" : "\(what) from \(low) to \(high)"
        case .integer(let range): return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case let .list(item, minimumCount, unique):
            var text = "an array"
            if minimumCount > 0 { text += " of at least \(minimumCount) item\(minimumCount == 1 ? "" : "s")" }
            text += ", each \(item.expectation)"
            return unique ? text + ", each listed once" : text
        case .dictionary(_, let values): return "an object whose values are each \(values.expectation)"
        case .object(let keys): return "an object with the keys \(keys.map(\.name).joined(separator: ", "))"
        }
    }

    /// `value` as a person wrote it: a number as written in the file, a string quoted
    /// and escaped, other values by their JSON type.
    public static func echo(_ value: ConfigValue) -> String {
        switch value {
        case let .number(number, literal): literal ?? format(number)
        case .string(let text): ConfigurationKey.quoted(URLCredentials.redacted(text))
        default: value.typeDescription
        }
    }

    /// A bound as a person writes it: `300`, `0.1`.
    public static func format(_ number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }

    /// Checks `value` at `path`; the error names the path and `expected`.
    public func check(_ value: ConfigValue, at path: String, expected: String? = nil) throws(ConfigurationError) {
        let expected = expected ?? expectation
        func fail(_ problem: String) -> ConfigurationError { ConfigurationError(path: path, problem: problem) }
        func wrongType() -> ConfigurationError { fail("expected \(expected), found \(value.typeDescription)") }
        switch self {
        case .string(let rules):
            guard case .string(let text) = value else { throw wrongType() }
            try Self.check(text, rules, at: path, expected: expected)
        case .oneOf(let allowed):
            guard case .string(let text) = value else { throw wrongType() }
            guard allowed.contains(text) else { throw fail("expected \(expected), found \(Self.echo(value))") }
        case .boolean:
            guard case .bool = value else { throw wrongType() }
        case let .number(minimum, exclusive, maximum, _):
            guard case .number(let number, _) = value else { throw wrongType() }
            if exclusive ? number <= minimum : number < minimum {
                throw fail("\(Self.echo(value)) is \(exclusive ? "not above" : "below") \(Self.format(minimum)); expected \(expected)")
            }
            if number > maximum { throw fail("\(Self.echo(value)) is above \(Self.format(maximum)); expected \(expected)") }
        case .integer(let range):
            guard case .number(let number, _) = value else { throw wrongType() }
            guard number.rounded() == number else { throw fail("\(Self.echo(value)) is not a whole number; expected \(expected)") }
            if number < Double(range.lowerBound) {
                throw fail("\(Self.echo(value)) is below \(range.lowerBound); expected \(expected)")
            }
            if number > Double(range.upperBound) {
                throw fail("\(Self.echo(value)) is above \(range.upperBound); expected \(expected)")
            }
        case let .list(item, minimumCount, unique):
            guard case .array(let items) = value else { throw wrongType() }
            guard items.count >= minimumCount else {
                throw fail("expected \(expected), found \(items.isEmpty ? "an empty array" : "\(items.count) item(s)")")
            }
            for (index, element) in items.enumerated() {
                let elementPath = "\(path)[\(index)]"
                try item.check(element, at: elementPath)
                if unique, let first = items[..<index].firstIndex(of: element) {
                    throw ConfigurationError(
                        path: elementPath,
                        problem: "\(Self.echo(element)) is listed twice (also at \(path)[\(first)]); list each once")
                }
            }
        case let .dictionary(names, values):
            guard case .object(let members) = value else { throw wrongType() }
            for member in members {
                let memberPath = ConfigurationKey.path(path, member.key)
                try Self.check(member.key, names, at: memberPath, expected: "a name such as \"LOG_LEVEL\"", what: "name")
                try values.check(member.value, at: memberPath)
            }
        case .object(let keys):
            guard case .object(let members) = value else { throw wrongType() }
            try ConfigurationKey.check(members, against: keys, at: path)
        }
    }

    private static func check(
        _ text: String, _ rules: [StringRule], at path: String, expected: String, what: String = "value"
    ) throws(ConfigurationError) {
        func fail(_ problem: String) -> ConfigurationError { ConfigurationError(path: path, problem: problem) }
        for rule in rules {
            switch rule {
            case .nonEmpty(let noun):
                guard !text.isEmpty else { throw fail("empty \(noun); expected \(expected)") }
            case .noNUL:
                guard !text.unicodeScalars.contains("\0") else {
                    throw fail("the \(what) \(quoted(text)) contains a NUL character (\\u0000); remove it")
                }
            case .noEquals:
                guard !text.contains("=") else {
                    throw fail("the \(what) \(quoted(text)) contains \"=\"; write the name alone as the key and the value on the right")
                }
            case .httpURL:
                guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                      let host = url.host, !host.isEmpty
                else { throw fail("expected \(expected), found \(quoted(URLCredentials.redacted(text)))") }
            }
        }
    }

    private static func quoted(_ text: String) -> String { ConfigurationKey.quoted(text) }
}
