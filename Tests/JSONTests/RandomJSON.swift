import JuiceJSON
import JuiceTestSupport

/// Random JSON values and number texts, for the module's invariants.
struct RandomJSON {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    /// Text of RFC 8259 number syntax, with a bounded exponent (so `Double` holds it):
    /// signs, zeros, fractions and exponents of every form, integers beyond `Int`.
    mutating func numberText() -> String {
        var text = Bool.random(using: &random) ? "-" : ""
        if Int.random(in: 0..<4, using: &random) == 0 {
            text += "0"
        } else {
            text += String(Int.random(in: 1...9, using: &random))
            for _ in 0..<Int.random(in: 0...21, using: &random) { text += String(Int.random(in: 0...9, using: &random)) }
        }
        if Bool.random(using: &random) {
            text += "."
            for _ in 0..<Int.random(in: 1...5, using: &random) { text += String(Int.random(in: 0...9, using: &random)) }
        }
        if Int.random(in: 0..<3, using: &random) == 0 {
            text += ["e", "E"].randomElement(using: &random) ?? "e"
            text += ["", "+", "-"].randomElement(using: &random) ?? ""
            text += String(Int.random(in: 0...99, using: &random))
        }
        return text
    }

    /// A string of ASCII, escapes' characters, controls, characters that steer a
    /// terminal, combining marks, Hangul and emoji.
    mutating func string() -> String {
        let pieces = [
            "a", "Z", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1B}", "\u{7F}", "\u{85}", "\u{2028}", "\u{202E}", "é", "e\u{301}", "딸기",
            "🍓", "{", "]", ":", ",",
        ]
        return (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined()
    }

    /// A value at most `depth` objects and arrays deep. Numbers as `numbers` reads
    /// them back: an integer literal `Int` holds as `.integer` for `.exactIntegers`.
    /// Object keys are distinct unless `duplicates`.
    mutating func value(depth: Int, numbers: JSONParser.Options.Numbers, duplicates: Bool = true) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .string(string())
        case 3, 4: return number(numberText(), numbers)
        case 5: return .string(String(repeating: "x", count: Int.random(in: 0...40, using: &random)))
        case 6:
            return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in value(depth: depth - 1, numbers: numbers, duplicates: duplicates) })
        default:
            var members: [JSONMember] = []
            for index in 0..<Int.random(in: 0...4, using: &random) {
                let key = duplicates && Bool.random(using: &random) ? string() : string() + "#\(index)"
                members.append(JSONMember(key: key, value: value(depth: depth - 1, numbers: numbers, duplicates: duplicates)))
            }
            return .object(members)
        }
    }

    /// The value `JSONParser` reads for the number `text`.
    func number(_ text: String, _ numbers: JSONParser.Options.Numbers) -> JSONValue {
        let integral = !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        if numbers == .exactIntegers, integral, let integer = Int(text) { return .integer(integer) }
        return .number(text)
    }
}
