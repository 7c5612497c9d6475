/// One JSON value: objects keep every member in text order, and every number keeps
/// its text (`JSONParser` reads an integer literal `Int` holds as `.integer` only when
/// its options ask for it; `String(value)` is then its text, but for `-0`).
public enum JSONValue: Sendable, Equatable {
    case object([JSONMember])
    case array([JSONValue])
    case string(String)
    /// A number without fraction or exponent that `Int` holds (`-0` is 0).
    case integer(Int)
    /// A number as its text: valid RFC 8259 number syntax, never rounded.
    case number(String)
    case bool(Bool)
    case null

    /// The value of the first member named `key`, if this is an object that has one.
    /// Keys are compared as `String`s (canonical equivalence), as `JSONDecoder`
    /// compares them; a later member of the same name is never looked at.
    public func member(_ key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// What the value is: `description` names it for an error message ("a string",
    /// "an array").
    public var kind: Kind {
        switch self {
        case .object: .object
        case .array: .array
        case .string: .string
        case .integer, .number: .number
        case .bool: .boolean
        case .null: .null
        }
    }

    /// The nearest `Double` to a number (`.integer` or `.number`); nil for any other
    /// value. Number text is valid RFC 8259 syntax, so it always reads: one beyond
    /// `Double`'s range reads as infinity (`Options.Numbers.doubles` refuses it).
    public var doubleValue: Double? {
        switch self {
        case .integer(let integer): Double(integer)
        case .number(let text): Double(text)
        default: nil
        }
    }

    /// The JSON type of a value, as an error message names it.
    public enum Kind: Sendable, Equatable, CustomStringConvertible {
        case object, array, string, number, boolean, null

        public var description: String {
            switch self {
            case .object: "an object"
            case .array: "an array"
            case .string: "a string"
            case .number: "a number"
            case .boolean: "a boolean"
            case .null: "null"
            }
        }
    }
}

/// One `"key": value` of a JSON object.
public struct JSONMember: Sendable, Equatable {
    public var key: String
    public var value: JSONValue

    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}
