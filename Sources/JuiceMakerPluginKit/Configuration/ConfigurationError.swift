import JuiceJSON
import JuiceMakerCore
import JuicePrimitives

/// A config value that is wrong: the file, the JSON path (`subscribers[1].level`) and
/// why, as a `Reason` a front end renders in its person's language. `description` is
/// the English line (logs, tests).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The config file, when known.
    public var file: String?
    /// The JSON path of the offending value (`subscribers[1].level`); empty for the file.
    public let path: String
    /// What is wrong and what was expected.
    public let reason: Reason

    public init(file: String? = nil, path: String, reason: Reason) {
        self.file = file
        self.path = path
        self.reason = reason
    }

    /// A plugin's own check (`init(configuration:context:)`), in both languages.
    public init(path: String, plugin message: PluginMessage) {
        self.init(path: path, reason: .plugin(message))
    }

    /// The reason in English.
    package var problem: String { reason.description }

    public var description: String {
        let location = [file, path.isEmpty ? nil : path].compactMap { $0 }.joined(separator: ": ")
        return location.isEmpty ? problem : "\(location): \(problem)"
    }

    /// The error with every text taken from the file passed through `transform`
    /// (values, keys, names); paths, bounds and counts are kept.
    package func mapText(_ transform: (String) -> String) -> ConfigurationError {
        ConfigurationError(file: file, path: path, reason: reason.mapText(transform))
    }

    /// Why a config value is wrong. Texts echoed from the file (`value`, `key`) are
    /// already quoted and escaped as `ConfigurationType.echo` writes them; a number is
    /// its literal as written.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// A key the object does not have; `allowed` are the ones it has.
        case unknownKey(String, allowed: [String])
        /// A value of the wrong JSON type.
        case wrongType(expected: ConfigurationExpectation, found: JSONValue.Kind)
        /// A value of the right type that is not one of those allowed (`oneOf`, a URL).
        case notAllowed(value: String, expected: ConfigurationExpectation)
        /// A number below the minimum (`exclusive`: at or below it).
        case belowMinimum(value: String, minimum: String, exclusive: Bool, expected: ConfigurationExpectation)
        case aboveMaximum(value: String, maximum: String, expected: ConfigurationExpectation)
        case notWholeNumber(value: String, expected: ConfigurationExpectation)
        /// An array with fewer items than it needs.
        case tooFewItems(found: Int, expected: ConfigurationExpectation)
        /// An item listed twice; `firstAt` is the path of its first listing.
        case duplicate(value: String, firstAt: String)
        /// `""` where a `noun` (path, name) is needed.
        case empty(noun: String, expected: ConfigurationExpectation)
        /// A `noun` (a name) of `length` characters, above its `maximum`.
        case tooLong(noun: String, length: Int, maximum: Int)
        /// A string (a value or an object's member name) with U+0000 in it.
        case containsNUL(StringPart, value: String)
        /// A variable name with `=` in it.
        case containsEquals(StringPart, value: String)
        /// A required key that is absent.
        case missingKey(expected: ConfigurationExpectation)
        /// A subscriber `name` that another subscriber (at `usedBy`) has.
        case nameInUse(String, usedBy: String)
        /// `${NAME}` with `NAME` not set.
        case missingVariable(String)
        /// `${` without its `}`.
        case unterminatedVariable
        /// `${…}` whose inside is not a variable name; the whole `${…}`, quoted.
        case notAVariableName(String)
        /// The file is not JSON.
        case malformedJSON(line: Int, column: Int, JSONProblem)
        /// The file could not be read.
        case cannotRead(SystemFailure)
        /// The path names a directory, a FIFO or another file that is not regular: only
        /// a regular file is read as config, so none can keep `juice` waiting.
        case notARegularFile(FileKind)
        case notUTF8
        /// `--config ""`.
        case emptyConfigPath
        /// A plugin's own check, in both languages.
        case plugin(PluginMessage)

        public var description: String {
            switch self {
            case let .unknownKey(key, allowed):
                "unknown key \(key); expected one of \(allowed.joined(separator: ", "))"
            case let .wrongType(expected, found): "expected \(expected), found \(found)"
            case let .notAllowed(value, expected): "expected \(expected), found \(value)"
            case let .belowMinimum(value, minimum, exclusive, expected):
                "\(value) is \(exclusive ? "not above" : "below") \(minimum); expected \(expected)"
            case let .aboveMaximum(value, maximum, expected): "\(value) is above \(maximum); expected \(expected)"
            case let .notWholeNumber(value, expected): "\(value) is not a whole number; expected \(expected)"
            case let .tooFewItems(found, expected):
                "expected \(expected), found \(found == 0 ? "an empty array" : EnglishCount.of(found, "item"))"
            case let .duplicate(value, firstAt): "\(value) is listed twice (also at \(firstAt)); list each once"
            case let .empty(noun, expected): "empty \(noun); expected \(expected)"
            case let .tooLong(noun, length, maximum):
                "the \(noun) is \(EnglishCount.of(length, "character")) long, above the maximum of \(maximum); write a shorter \(noun)"
            case let .containsNUL(part, value): "the \(part) \(value) contains a NUL character (\\u0000); remove it"
            case let .containsEquals(part, value):
                "the \(part) \(value) contains \"=\"; write the name alone as the key and the value on the right"
            case let .missingKey(expected): "missing; expected \(expected)"
            case let .nameInUse(name, usedBy): "the name \(name) is already used by \(usedBy); names must be unique"
            case let .missingVariable(name): "the environment variable \(name) is not set; export \(name) or remove ${\(name)}"
            case .unterminatedVariable: "unterminated \"${\"; write ${NAME}"
            case let .notAVariableName(text): "\(text) is not a variable name; use letters, digits and _"
            case let .malformedJSON(line, column, problem): "malformed JSON at line \(line), column \(column): \(problem)"
            case let .cannotRead(failure): "cannot read the file: \(failure.message)"
            case let .notARegularFile(kind): "not a regular file (\(kind.english)); give the path of a JSON file"
            case .notUTF8: "the file is not UTF-8 text"
            case .emptyConfigPath: "--config: empty path; give the config file's path, or leave --config out"
            case let .plugin(message): message.english
            }
        }

        /// The reason with every text from the file passed through `transform`.
        package func mapText(_ transform: (String) -> String) -> Reason {
            switch self {
            case let .unknownKey(key, allowed): .unknownKey(transform(key), allowed: allowed)
            case let .notAllowed(value, expected): .notAllowed(value: transform(value), expected: expected)
            case let .belowMinimum(value, minimum, exclusive, expected):
                .belowMinimum(value: transform(value), minimum: minimum, exclusive: exclusive, expected: expected)
            case let .aboveMaximum(value, maximum, expected): .aboveMaximum(value: transform(value), maximum: maximum, expected: expected)
            case let .notWholeNumber(value, expected): .notWholeNumber(value: transform(value), expected: expected)
            case let .duplicate(value, firstAt): .duplicate(value: transform(value), firstAt: firstAt)
            case let .containsNUL(part, value): .containsNUL(part, value: transform(value))
            case let .containsEquals(part, value): .containsEquals(part, value: transform(value))
            case let .nameInUse(name, usedBy): .nameInUse(transform(name), usedBy: usedBy)
            case let .notAVariableName(text): .notAVariableName(transform(text))
            // A plugin's message is its own sentence, not a value from the file: escaped
            // (it may quote one), never cut, so its way out is always shown.
            case let .plugin(message):
                .plugin(PluginMessage(english: TerminalText.escaped(message.english), korean: TerminalText.escaped(message.korean)))
            case .wrongType, .tooFewItems, .empty, .tooLong, .missingKey, .missingVariable, .unterminatedVariable, .malformedJSON,
                .cannotRead, .notARegularFile, .notUTF8, .emptyConfigPath:
                self
            }
        }
    }

    /// Which part of an object member a string rule refused.
    public enum StringPart: String, Sendable, Equatable, CustomStringConvertible {
        case value, name
        public var description: String { rawValue }
    }
}

/// What a config value must be, for error messages; `description` is the English.
public indirect enum ConfigurationExpectation: Sendable, Equatable, CustomStringConvertible {
    case string
    /// A string that is not `""`; `noun` says what it is ("path").
    case nonEmpty(String)
    case httpURL
    case oneOf([String])
    case boolean
    /// Bounds as a person writes them (`300`, `0.1`); `unit` as declared ("seconds").
    case number(minimum: String, exclusiveMinimum: Bool, maximum: String, unit: String?)
    case integer(ClosedRange<Int>)
    case list(ConfigurationExpectation, minimumCount: Int, unique: Bool)
    case dictionary(values: ConfigurationExpectation)
    case object(keys: [String])
    /// Any JSON object.
    case anyObject
    /// The `subscribers` array.
    case subscriberList
    /// An environment variable's name.
    case variableName
    /// A key's own words (`ConfigurationKey.expected`), in both languages.
    case described(PluginMessage)

    public var description: String {
        switch self {
        case .string: return "a string"
        case .nonEmpty(let noun): return "a non-empty \(noun)"
        case .httpURL: return "an http:// or https:// URL with a host"
        case .oneOf(let allowed): return "one of \(allowed.joined(separator: ", "))"
        case .boolean: return "true or false"
        case let .number(minimum, exclusive, maximum, unit):
            let what = unit.map { "a number of \($0)" } ?? "a number"
            return exclusive ? "\(what) above \(minimum) and at most \(maximum)" : "\(what) from \(minimum) to \(maximum)"
        case .integer(let range): return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case let .list(item, minimumCount, unique):
            var text = "an array"
            if minimumCount > 0 { text += " of at least \(EnglishCount.of(minimumCount, "item"))" }
            text += ", each \(item)"
            return unique ? text + ", each listed once" : text
        case .dictionary(let values): return "an object whose values are each \(values)"
        case .object(let keys): return "an object with the keys \(keys.joined(separator: ", "))"
        case .anyObject: return "an object"
        case .subscriberList: return "an array of subscriber objects"
        case .variableName: return "a name such as \"LOG_LEVEL\""
        case .described(let message): return message.english
        }
    }
}

/// What is wrong with JSON text, at a line and column the error names.
public enum JSONProblem: Sendable, Equatable, CustomStringConvertible {
    /// What the reader found where it expected something else.
    public enum Found: Sendable, Equatable, CustomStringConvertible {
        case endOfFile
        /// A printable ASCII character.
        case character(Character)
        case unexpectedCharacter

        public var description: String {
            switch self {
            case .endOfFile: "the end of the file"
            case .character(let character): "'\(character)'"
            case .unexpectedCharacter: "an unexpected character"
            }
        }
    }

    case textAfterValue
    case nestedTooDeep(Int)
    case expectedValue(Found)
    case expectedKey(Found)
    case expectedColon(Found)
    case expectedCommaOrBrace(Found)
    case expectedCommaOrBracket(Found)
    /// A key written twice in one object, escaped.
    case duplicateKey(String)
    case unterminatedString
    case controlCharacter
    /// An unknown escape letter, escaped.
    case unknownEscape(String)
    case expectedHexDigits
    case loneSurrogate
    case invalidSurrogatePair
    case expectedDigits
    case leadingZero
    case expectedFractionDigits
    case expectedExponentDigits
    case numberOutOfRange

    public var description: String {
        switch self {
        case .textAfterValue: "unexpected text after the JSON value"
        case .nestedTooDeep(let levels): "nested deeper than \(EnglishCount.of(levels, "level"))"
        case .expectedValue(let found): "expected a value, found \(found)"
        case .expectedKey(let found): "expected a key in double quotes, found \(found)"
        case .expectedColon(let found): "expected ':' after the key, found \(found)"
        case .expectedCommaOrBrace(let found): "expected ',' or '}', found \(found)"
        case .expectedCommaOrBracket(let found): "expected ',' or ']', found \(found)"
        case .duplicateKey(let key): "duplicate key \"\(key)\""
        case .unterminatedString: "unterminated string"
        case .controlCharacter: "control character in a string; write it as an escape (\\n, \\t)"
        case .unknownEscape(let letter): "unknown escape '\\\(letter)'"
        case .expectedHexDigits: "expected four hex digits after \\u"
        case .loneSurrogate: "lone surrogate in \\u escape"
        case .invalidSurrogatePair: "invalid surrogate pair in \\u escape"
        case .expectedDigits: "expected digits in a number"
        case .leadingZero: "a number cannot start with 0"
        case .expectedFractionDigits: "expected digits after the decimal point"
        case .expectedExponentDigits: "expected digits in the exponent"
        case .numberOutOfRange: "number out of range"
        }
    }
}
