import JuiceMakerCore
import JuiceMakerPluginKit

/// JSON text that is not valid JSON: where (1-based line and column) and what was expected.
///
/// A column counts Unicode scalars (code points) from the start of the line, the first
/// being 1; a byte-order mark at the start of the file is not counted. Scalars, not
/// grapheme clusters: they do not depend on the Unicode version, and an editor's
/// "go to column" and most other JSON tools count them too (README, Config).
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let column: Int
    public let problem: JSONProblem

    public var description: String { "malformed JSON at line \(line), column \(column): \(problem)" }
}

/// Reads RFC 8259 JSON into a `ConfigValue`, keeping object keys in file order.
///
/// Strict: no comments, no trailing commas, no duplicate keys in one object (keys are
/// compared code point by code point, RFC 8259 section 8.3, so `"\u00e9"` and
/// `"e\u0301"` are two keys); nesting deeper than `maximumDepth` is refused rather than
/// risking the stack. Every error names the line and column (`JSONSyntaxError`).
///
/// Linear in the input: every byte is looked at a bounded number of times (a string's
/// bytes are copied once, a key is checked against the others with one hash lookup).
public struct JSONReader {
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    /// Where line 1's columns start: after the byte-order mark, if any.
    private let textStart: Int

    private init(_ text: String) {
        bytes = Array(text.utf8)
        textStart = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        index = textStart
    }

    /// Parses one JSON document (surrounding whitespace allowed).
    public static func parse(_ text: String) throws(JSONSyntaxError) -> ConfigValue {
        var reader = JSONReader(text)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else { throw reader.error(.textAfterValue) }
        return value
    }

    private func error(_ problem: JSONProblem, at position: Int? = nil) -> JSONSyntaxError {
        let end = max(textStart, min(position ?? index, bytes.count))
        var line = 1
        var lineStart = textStart
        for offset in textStart..<end where bytes[offset] == 0x0A {
            line += 1
            lineStart = offset + 1
        }
        // Scalars: every byte that is not a UTF-8 continuation byte starts one.
        let column = bytes[lineStart..<end].reduce(1) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        return JSONSyntaxError(line: line, column: column, problem: problem)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func found() -> JSONProblem.Found {
        guard let byte = current else { return .endOfFile }
        if byte >= 0x21, byte < 0x7F { return .character(Character(Unicode.Scalar(byte))) }
        return .unexpectedCharacter
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> ConfigValue {
        guard depth < Self.maximumDepth else { throw error(.nestedTooDeep(Self.maximumDepth)) }
        switch current {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case let byte? where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39): return try number()
        default: throw error(.expectedValue(found()))
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error(.expectedValue(found()))
        }
        index += expected.count
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> ConfigValue {
        index += 1
        var members: [(key: String, value: ConfigValue)] = []
        // Each key's UTF-8 bytes: equal bytes are equal code points (RFC 8259 section
        // 8.3), unlike `String` equality, which treats canonical equivalents as equal.
        // A list while the object is small (a config's objects are), a set from the
        // 17th key: a set's first storage costs a runtime conformance lookup.
        var keys: [[UInt8]] = []
        var manyKeys = Set<[UInt8]>()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error(.expectedKey(found())) }
            let keyStart = index
            let keyBytes = try stringBytes()
            let key = String(decoding: keyBytes, as: UTF8.self)
            let isNew: Bool
            if keys.count < 16 {
                isNew = !keys.contains(keyBytes)
                if isNew { keys.append(keyBytes) }
                if keys.count == 16 { manyKeys = Set(keys) }
            } else {
                isNew = manyKeys.insert(keyBytes).inserted
            }
            guard isNew else { throw error(.duplicateKey(TerminalText.escaped(key)), at: keyStart) }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error(.expectedColon(found())) }
            index += 1
            skipWhitespace()
            members.append((key, try value(depth: depth + 1)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw error(.expectedCommaOrBrace(found()))
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> ConfigValue {
        index += 1
        var items: [ConfigValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(items)
            default: throw error(.expectedCommaOrBracket(found()))
            }
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        String(decoding: try stringBytes(), as: UTF8.self)
    }

    /// The UTF-8 bytes of the string starting at `index` (a `"`), escapes decoded.
    private mutating func stringBytes() throws(JSONSyntaxError) -> [UInt8] {
        let text = bytes
        do {
            switch try JSONStringBody.read(text, at: &index) {
            case .plain(let range): return Array(text[range])
            case .decoded(let utf8): return utf8
            }
        } catch {
            let problem: JSONProblem =
                switch error.kind {
                case .unterminated: .unterminatedString
                case .controlCharacter: .controlCharacter
                case .unknownEscape(let letter): .unknownEscape(TerminalText.escaped(String(Unicode.Scalar(letter))))
                case .expectedHexDigits: .expectedHexDigits
                case .loneSurrogate: .loneSurrogate
                case .invalidSurrogatePair: .invalidSurrogatePair
                }
            throw self.error(problem, at: error.position)
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> ConfigValue {
        let start = index
        func digits() -> Int {
            let from = index
            while let byte = current, byte >= 0x30, byte <= 0x39 { index += 1 }
            return index - from
        }
        if current == UInt8(ascii: "-") { index += 1 }
        let leadingZero = current == UInt8(ascii: "0")
        let integerDigits = digits()
        guard integerDigits > 0 else { throw error(.expectedDigits, at: index) }
        guard !(leadingZero && integerDigits > 1) else { throw error(.leadingZero, at: start) }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error(.expectedFractionDigits) }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error(.expectedExponentDigits) }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error(.numberOutOfRange, at: start) }
        return .number(value, literal: text)
    }
}
