#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceJSON
import JuiceMakerCore
import JuicePrimitives

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
    package let defaultValue: JSONValue?
    /// One sentence for a person (and the schema's `description`).
    package let description: String
    package let isRequired: Bool
    /// What an error says was expected, when the type's own words are not enough
    /// (`the program and its arguments, e.g. ["/usr/bin/python3", "hook.py"]`), in
    /// both languages.
    package let expected: PluginMessage?
    /// What of the value `juice config show` hides. Secrets are denied by default: the
    /// whole value when the name reads like a secret's (`ConfigurationSecrecy.isSecretName`)
    /// or when it is text not declared `.harmless` (a string, a list of them, a
    /// dictionary); a value that cannot hold text (a number, a flag, one of fixed words,
    /// an object whose keys are each declared) is shown, but for URL secrets.
    package let secrecy: ConfigurationSecrecy

    public init(
        _ name: String, _ type: ConfigurationType, default defaultValue: JSONValue? = nil, required: Bool = false,
        expected: PluginMessage? = nil, secrecy: ConfigurationSecrecy? = nil, description: String
    ) {
        self.secrecy = secrecy ?? (ConfigurationSecrecy.isSecretName(name) || !type.holdsNoFreeText ? .secret : .harmless)
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.description = description
        self.isRequired = required
        self.expected = expected
    }

    /// What a value of this key must be, for error messages.
    package var expectation: ConfigurationExpectation { expected.map { .described($0) } ?? type.expectation }

    /// Checks `value`, found at `path`, against the declaration.
    package func check(_ value: JSONValue, at path: String) throws(ConfigurationError) {
        try type.check(value, at: path, expected: expectation)
    }

    /// The error for a required key that is absent from the object at `parent`.
    package func missing(in parent: String) -> ConfigurationError {
        ConfigurationError(path: ConfigurationKey.path(parent, name), reason: .missingKey(expected: expectation))
    }

    /// The JSON path of `key` inside the object at `parent`: `parent.key` for a plain
    /// name, `parent["A=B"]` (escaped) for any other.
    package static func path(_ parent: String, _ key: String) -> String {
        let plain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy {
                $0 == "_" || $0 == "-" || $0 == "$" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
            }
        if plain { return parent.isEmpty ? key : "\(parent).\(key)" }
        return "\(parent)[\(quoted(key))]"
    }

    /// `text` as a JSON string: quoted, control characters escaped, so an echoed value
    /// can never move the cursor, clear the screen or end the line.
    package static func quoted(_ text: String) -> String {
        var result = ""
        CloudEventFormat.appendQuoted(text, to: &result)
        return result
    }

    /// Checks an object's members against `keys`: no unknown key, every required key
    /// present, every value as declared. `skipping` are paths whose value is not known
    /// (a `${NAME}` that is not set in a disabled subscriber).
    package static func check(
        _ members: [JSONMember], against keys: [ConfigurationKey], at parent: String,
        skipping: Set<String> = []
    ) throws(ConfigurationError) {
        for member in members where !keys.contains(where: { $0.name == member.key }) {
            throw ConfigurationError(
                path: path(parent, member.key), reason: .unknownKey(quoted(member.key), allowed: keys.map(\.name)))
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
    /// At most this many characters (Unicode scalars, as JSON Schema's `maxLength`
    /// counts); the noun names what is too long ("name").
    case maxLength(Int, String)
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
    package var expectation: ConfigurationExpectation {
        switch self {
        case .string(let rules):
            if rules.contains(.httpURL) { return .httpURL }
            for case .nonEmpty(let noun) in rules { return .nonEmpty(noun) }
            return .string
        case .oneOf(let allowed): return .oneOf(allowed)
        case .boolean: return .boolean
        case let .number(minimum, exclusive, maximum, unit):
            return .number(minimum: Self.format(minimum), exclusiveMinimum: exclusive, maximum: Self.format(maximum), unit: unit)
        case .integer(let range): return .integer(range)
        case let .list(item, minimumCount, unique): return .list(item.expectation, minimumCount: minimumCount, unique: unique)
        case .dictionary(_, let values): return .dictionary(values: values.expectation)
        case .object(let keys): return .object(keys: keys.map(\.name))
        }
    }

    /// `value` as a person wrote it: a number as written in the file, a string quoted
    /// and escaped, other values by their JSON type.
    package static func echo(_ value: JSONValue) -> String {
        switch value {
        case .integer(let integer): String(integer)
        case .number(let text): text
        case .string(let text): ConfigurationKey.quoted(URLCredentials.redacted(text))
        default: value.kind.description
        }
    }

    /// A bound as a person writes it: `300`, `0.1`.
    package static func format(_ number: Double) -> String {
        if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }

    /// Whether a value of this type cannot carry text a person typed freely (a secret):
    /// numbers, flags, one of fixed words, an HTTP URL (shown without its secrets), an
    /// object (its keys are declared one by one), and lists of those.
    package var holdsNoFreeText: Bool {
        switch self {
        case .oneOf, .boolean, .number, .integer, .object: true
        case .string(let rules): rules.contains(.httpURL)
        case .list(let item, _, _): item.holdsNoFreeText
        case .dictionary: false
        }
    }

    /// Checks `value` at `path`; the error names the path and `expected`.
    package func check(_ value: JSONValue, at path: String, expected: ConfigurationExpectation? = nil) throws(ConfigurationError) {
        let expected = expected ?? expectation
        func fail(_ reason: ConfigurationError.Reason) -> ConfigurationError { ConfigurationError(path: path, reason: reason) }
        func wrongType() -> ConfigurationError { fail(.wrongType(expected: expected, found: value.kind)) }
        switch self {
        case .string(let rules):
            guard case .string(let text) = value else { throw wrongType() }
            try Self.check(text, rules, at: path, expected: expected)
        case .oneOf(let allowed):
            guard case .string(let text) = value else { throw wrongType() }
            guard allowed.contains(text) else { throw fail(.notAllowed(value: Self.echo(value), expected: expected)) }
        case .boolean:
            guard case .bool = value else { throw wrongType() }
        case let .number(minimum, exclusive, maximum, _):
            guard let number = value.doubleValue else { throw wrongType() }
            if exclusive ? number <= minimum : number < minimum {
                throw fail(.belowMinimum(value: Self.echo(value), minimum: Self.format(minimum), exclusive: exclusive, expected: expected))
            }
            if number > maximum { throw fail(.aboveMaximum(value: Self.echo(value), maximum: Self.format(maximum), expected: expected)) }
        case .integer(let range):
            guard let number = value.doubleValue else { throw wrongType() }
            guard number.rounded() == number else { throw fail(.notWholeNumber(value: Self.echo(value), expected: expected)) }
            if number < Double(range.lowerBound) {
                throw fail(.belowMinimum(value: Self.echo(value), minimum: String(range.lowerBound), exclusive: false, expected: expected))
            }
            if number > Double(range.upperBound) {
                throw fail(.aboveMaximum(value: Self.echo(value), maximum: String(range.upperBound), expected: expected))
            }
        case let .list(item, minimumCount, unique):
            guard case .array(let items) = value else { throw wrongType() }
            guard items.count >= minimumCount else {
                throw fail(.tooFewItems(found: items.count, expected: expected))
            }
            for (index, element) in items.enumerated() {
                let elementPath = "\(path)[\(index)]"
                try item.check(element, at: elementPath)
                if unique, let first = items[..<index].firstIndex(where: { $0.isSameValue(as: element) }) {
                    throw ConfigurationError(
                        path: elementPath, reason: .duplicate(value: Self.echo(element), firstAt: "\(path)[\(first)]"))
                }
            }
        case let .dictionary(names, values):
            guard case .object(let members) = value else { throw wrongType() }
            for member in members {
                let memberPath = ConfigurationKey.path(path, member.key)
                try Self.check(member.key, names, at: memberPath, expected: .variableName, what: .name)
                try values.check(member.value, at: memberPath)
            }
        case .object(let keys):
            guard case .object(let members) = value else { throw wrongType() }
            try ConfigurationKey.check(members, against: keys, at: path)
        }
    }

    private static func check(
        _ text: String, _ rules: [StringRule], at path: String, expected: ConfigurationExpectation,
        what: ConfigurationError.StringPart = .value
    ) throws(ConfigurationError) {
        func fail(_ reason: ConfigurationError.Reason) -> ConfigurationError { ConfigurationError(path: path, reason: reason) }
        for rule in rules {
            switch rule {
            case .nonEmpty(let noun):
                guard !text.isEmpty else { throw fail(.empty(noun: noun, expected: expected)) }
            case let .maxLength(maximum, noun):
                let length = text.unicodeScalars.count
                guard length <= maximum else { throw fail(.tooLong(noun: noun, length: length, maximum: maximum)) }
            case .noNUL:
                guard !text.unicodeScalars.contains("\0") else {
                    throw fail(.containsNUL(what, value: quoted(text)))
                }
            case .noEquals:
                guard !text.contains("=") else {
                    throw fail(.containsEquals(what, value: quoted(text)))
                }
            case .httpURL:
                guard let url = ParsedURL(text), ["http", "https"].contains(url.scheme.lowercased()), let host = url.decodedHost,
                    !host.isEmpty
                else { throw fail(.notAllowed(value: quoted(URLCredentials.redacted(text)), expected: expected)) }
            }
        }
    }

    private static func quoted(_ text: String) -> String { ConfigurationKey.quoted(text) }
}
