/// JSON text that `JSONParser` does not take: where (the 1-based byte offset in its
/// UTF-8) and why.
package struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    package let byte: Int
    package let problem: String

    package var description: String { "malformed JSON at byte \(byte): \(problem)" }
}

/// Reads RFC 8259 JSON text into a `JSONValue`, without Foundation: the core reads an
/// event its fast reader leaves (`CloudEventFormat.decode`) with it, because
/// `JSONDecoder` links ~200 KB of FoundationEssentials tables the loader relocates at
/// every `juice` start (README, Measured).
///
/// Strict: one value, whitespace around tokens, nothing after it; no comments, no
/// trailing commas, no leading zeros, no `+`, no control characters in strings, only
/// the escapes RFC 8259 names, and a `\u` escape of a surrogate only as a pair (a
/// `String` cannot hold half of one). One UTF-8 byte-order mark before the value is
/// ignored (RFC 8259 section 8.1 allows it), as `JSONDecoder` does. Duplicate keys are
/// kept, in order: `JSONValue.member(_:)` answers the first, as `JSONDecoder` does.
///
/// At most `maximumDepth` objects and arrays nested, `JSONDecoder`'s own limit. The
/// parser keeps its open objects and arrays in a list, not on the call stack, so no
/// input recurses. Linear in the input: each byte is looked at a bounded number of
/// times, and a string without escapes is copied in one piece.
package struct JSONParser {
    package static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0

    private init(_ text: String) {
        bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    /// The one JSON value `text` is.
    package static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(text)
        let value = try parser.document()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("text after the value") }
        return value
    }

    /// An object or array whose members are being read.
    private struct Open {
        let isObject: Bool
        var members: [JSONMember] = []
        var items: [JSONValue] = []
        /// The key of the member whose value is read next (objects).
        var key = ""
    }

    private mutating func document() throws(JSONParseError) -> JSONValue {
        var open: [Open] = []
        reading: while true {
            skipWhitespace()
            var value: JSONValue
            switch current {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = current == UInt8(ascii: "{")
                guard open.count < Self.maximumDepth else { throw error("more than \(Self.maximumDepth) objects and arrays nested") }
                index += 1
                skipWhitespace()
                if current == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    value = isObject ? .object([]) : .array([])
                } else {
                    var container = Open(isObject: isObject)
                    if isObject { container.key = try key() }
                    open.append(container)
                    continue reading
                }
            case UInt8(ascii: "\""): value = .string(try string())
            case UInt8(ascii: "t"): value = .bool(try literal("true", true))
            case UInt8(ascii: "f"): value = .bool(try literal("false", false))
            case UInt8(ascii: "n"): value = try literal("null", .null)
            case let byte? where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39): value = try number()
            default: throw error("expected a value")
            }
            // `value` is whole: add it to the open container, closing each one it completes.
            while let last = open.indices.last {
                if open[last].isObject {
                    open[last].members.append(JSONMember(key: open[last].key, value: value))
                } else {
                    open[last].items.append(value)
                }
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    if open[last].isObject { open[last].key = try key() }
                    continue reading
                }
                let closing = open[last].isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                guard current == closing else {
                    throw error(open[last].isObject ? "expected , or } after an object member" : "expected , or ] after an array element")
                }
                index += 1
                let container = open.removeLast()
                value = container.isObject ? .object(container.members) : .array(container.items)
            }
            return value
        }
    }

    private func error(_ problem: String, at position: Int? = nil) -> JSONParseError {
        JSONParseError(byte: min(position ?? index, bytes.count) + 1, problem: problem)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    /// `"key" :`, whitespace around it read.
    private mutating func key() throws(JSONParseError) -> String {
        skipWhitespace()
        guard current == UInt8(ascii: "\"") else { throw error("expected a key (a string)") }
        let key = try string()
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { throw error("expected : after a key") }
        index += 1
        return key
    }

    private mutating func literal<Value>(_ word: StaticString, _ value: Value) throws(JSONParseError) -> Value {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("expected a value") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw error("expected a value") }
        index += count
        return value
    }

    /// The string starting at `index` (a `"`), escapes decoded. The text came from a
    /// `String`, so the bytes between the quotes are valid UTF-8.
    private mutating func string() throws(JSONParseError) -> String {
        let text = bytes
        do {
            switch try JSONStringBody.read(text, at: &index) {
            case .plain(let range): return String(decoding: text[range], as: UTF8.self)
            case .decoded(let utf8): return String(decoding: utf8, as: UTF8.self)
            }
        } catch {
            let problem =
                switch error.kind {
                case .unterminated: "unterminated string"
                case .controlCharacter: "control character in a string (write it as an escape)"
                case .unknownEscape: "unknown escape"
                case .expectedHexDigits: "expected four hex digits after \\u"
                case .loneSurrogate, .invalidSurrogatePair: "lone surrogate escape"
                }
            throw self.error(problem, at: error.position)
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`: `.integer` when it is an
    /// integer literal `Int` holds, otherwise its text.
    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        func digits() -> Int {
            let from = index
            while let byte = current, byte >= 0x30, byte <= 0x39 { index += 1 }
            return index - from
        }
        let negative = current == UInt8(ascii: "-")
        if negative { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw error("expected a digit") }
        guard integerDigits == 1 || bytes[integerStart] != 0x30 else { throw error("leading zero in a number", at: integerStart) }
        var integral = true
        if current == UInt8(ascii: ".") {
            index += 1
            integral = false
            guard digits() > 0 else { throw error("expected a digit after the decimal point") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            integral = false
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("expected a digit in the exponent") }
        }
        if integral, let value = Self.integer(bytes[integerStart..<index], negative: negative) { return .integer(value) }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    /// The decimal `digits` (with the sign) as an `Int`, or nil when it does not hold them.
    private static func integer(_ digits: ArraySlice<UInt8>, negative: Bool) -> Int? {
        var value = 0
        for byte in digits {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let digit = Int(byte - 0x30)
            let (sum, carry) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
