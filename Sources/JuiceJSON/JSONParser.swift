/// Reads RFC 8259 JSON text into a `JSONValue`, with the standard library only.
///
/// Strict: one value, whitespace around tokens, nothing after it; no comments, no
/// trailing commas, no leading zeros, no `+`, no control characters in strings, only
/// the escapes RFC 8259 names, and a `\u` escape of a surrogate only as a pair (a
/// `String` cannot hold half of one). One UTF-8 byte-order mark before the value is
/// ignored (RFC 8259 section 8.1 allows it). Repeated keys, depth and numbers are the
/// caller's `Options`. The first thing wrong is the error, at its byte.
///
/// Iterative: open objects and arrays are kept in a list, not on the call stack, so no
/// input recurses, however deep. Linear in the input: each byte is looked at a bounded
/// number of times, a string without escapes is copied in one piece, and a repeated
/// key is found with one hash lookup.
public struct JSONParser {
    private let bytes: [UInt8]
    private let options: Options
    private var index = 0

    private init(_ text: String, _ options: Options) {
        bytes = Array(text.utf8)
        self.options = options
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    /// The one JSON value `text` is.
    public static func parse(_ text: String, options: Options = Options()) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(text, options)
        let value = try parser.document()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error(.textAfterValue) }
        return value
    }

    /// An object or array whose members are being read.
    private struct Open {
        let isObject: Bool
        var members: [JSONMember] = []
        var items: [JSONValue] = []
        /// The key of the member whose value is read next (objects).
        var key = ""
        /// The keys read so far, when repeated ones are refused.
        var keys = KeySet()
    }

    private mutating func document() throws(JSONParseError) -> JSONValue {
        var open: [Open] = []
        reading: while true {
            skipWhitespace()
            var value: JSONValue
            switch current {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = current == UInt8(ascii: "{")
                guard open.count < options.maximumDepth else { throw error(.nestedTooDeep(options.maximumDepth)) }
                index += 1
                skipWhitespace()
                if current == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    value = isObject ? .object([]) : .array([])
                } else {
                    var container = Open(isObject: isObject)
                    if isObject { try key(of: &container) }
                    open.append(container)
                    continue reading
                }
            case UInt8(ascii: "\""): value = .string(try string())
            case UInt8(ascii: "t"): value = .bool(try literal("true", true))
            case UInt8(ascii: "f"): value = .bool(try literal("false", false))
            case UInt8(ascii: "n"): value = try literal("null", .null)
            case let byte? where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39): value = try number()
            default: throw error(.expectedValue)
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
                    if open[last].isObject { try key(of: &open[last]) }
                    continue reading
                }
                guard current == (open[last].isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                    throw error(open[last].isObject ? .expectedCommaOrBrace : .expectedCommaOrBracket)
                }
                index += 1
                let container = open.removeLast()
                value = container.isObject ? .object(container.members) : .array(container.items)
            }
            return value
        }
    }

    private func error(_ problem: JSONParseError.Problem, at position: Int? = nil) -> JSONParseError {
        JSONParseError(offset: min(position ?? index, bytes.count), problem: problem)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    /// `"key" :`, whitespace around it read, into `container.key`.
    private mutating func key(of container: inout Open) throws(JSONParseError) {
        skipWhitespace()
        guard current == UInt8(ascii: "\"") else { throw error(.expectedKey) }
        let start = index
        let key = try string()
        if options.duplicateKeys == .refuse, !container.keys.insert(Array(key.utf8)) { throw error(.duplicateKey(key), at: start) }
        container.key = key
        skipWhitespace()
        guard current == UInt8(ascii: ":") else { throw error(.expectedColon) }
        index += 1
    }

    private mutating func literal<Value>(_ word: StaticString, _ value: Value) throws(JSONParseError) -> Value {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error(.expectedValue) }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw error(.expectedValue) }
        index += count
        return value
    }

    /// The string starting at `index` (a `"`), escapes decoded. The text came from a
    /// `String`, so the bytes between the quotes are valid UTF-8, and the string's UTF-8
    /// is those bytes, escapes decoded.
    private mutating func string() throws(JSONParseError) -> String {
        let text = bytes
        do {
            switch try JSONStringBody.read(text, at: &index) {
            case .plain(let range): return String(decoding: text[range], as: UTF8.self)
            case .decoded(let utf8): return String(decoding: utf8, as: UTF8.self)
            }
        } catch {
            let problem: JSONParseError.Problem =
                switch error.kind {
                case .unterminated: .unterminatedString
                case .controlCharacter: .controlCharacter
                case .unknownEscape(let letter): .unknownEscape(letter)
                case .expectedHexDigits: .expectedHexDigits
                case .loneSurrogate: .loneSurrogate
                case .invalidSurrogatePair: .invalidSurrogatePair
                }
            throw self.error(problem, at: error.position)
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, as `options.numbers` asks.
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
        guard integerDigits > 0 else { throw error(.expectedDigit) }
        guard integerDigits == 1 || bytes[integerStart] != 0x30 else { throw error(.leadingZero, at: integerStart) }
        var integral = true
        if current == UInt8(ascii: ".") {
            index += 1
            integral = false
            guard digits() > 0 else { throw error(.expectedFractionDigit) }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            integral = false
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error(.expectedExponentDigit) }
        }
        switch options.numbers {
        case .exactIntegers:
            if integral, let value = Self.integer(bytes[integerStart..<index], negative: negative) { return .integer(value) }
            return .number(String(decoding: bytes[start..<index], as: UTF8.self))
        case .doubles:
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw error(.numberOutOfRange, at: start) }
            return .number(text)
        }
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

/// The keys of one object as UTF-8 bytes: equal bytes are equal code points (RFC 8259
/// section 8.3), unlike `String` equality, which treats canonical equivalents as equal.
/// A list while the object is small (a config's objects are), a set from the 17th key,
/// so that a small object makes no set.
private struct KeySet {
    private var list: [[UInt8]] = []
    private var set: Set<[UInt8]>?

    /// Adds `key`; false when it is there already.
    mutating func insert(_ key: [UInt8]) -> Bool {
        if set != nil { return set?.insert(key).inserted ?? false }
        guard !list.contains(key) else { return false }
        list.append(key)
        if list.count > 16 {
            set = Set(list)
            list = []
        }
        return true
    }
}
