import JuiceMakerCore

/// JSON text that is not valid JSON: where (1-based line and column) and what was expected.
struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    let line: Int
    let column: Int
    let problem: String

    var description: String { "malformed JSON at line \(line), column \(column): \(problem)" }
}

/// Reads RFC 8259 JSON into a `ConfigValue`, keeping object keys in file order.
///
/// Strict: no comments, no trailing commas, no duplicate keys in one object; nesting
/// deeper than `maximumDepth` is refused rather than risking the stack. Every error
/// names the line and column (columns count characters, not bytes).
struct JSONReader {
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0

    private init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// Parses one JSON document (surrounding whitespace allowed).
    static func parse(_ text: String) throws(JSONSyntaxError) -> ConfigValue {
        var reader = JSONReader(text)
        if reader.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.index = 3 }
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else { throw reader.error("unexpected text after the JSON value") }
        return value
    }

    private func error(_ problem: String, at position: Int? = nil) -> JSONSyntaxError {
        let end = min(position ?? index, bytes.count)
        var line = 1
        var lineStart = 0
        for offset in 0..<end where bytes[offset] == 0x0A {
            line += 1
            lineStart = offset + 1
        }
        let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
        return JSONSyntaxError(line: line, column: column, problem: problem)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func found() -> String {
        guard let byte = current else { return "the end of the file" }
        if byte >= 0x21, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "an unexpected character"
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> ConfigValue {
        guard depth < Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        switch current {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case let byte? where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39): return try number()
        default: throw error("expected a value, found \(found())")
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("expected a value, found \(found())")
        }
        index += expected.count
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> ConfigValue {
        index += 1
        var members: [(key: String, value: ConfigValue)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a key in double quotes, found \(found())") }
            let keyStart = index
            let key = try string()
            if members.contains(where: { $0.key == key }) { throw error("duplicate key \"\(key)\"", at: keyStart) }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after the key, found \(found())") }
            index += 1
            skipWhitespace()
            members.append((key, try value(depth: depth + 1)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw error("expected ',' or '}', found \(found())")
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
            default: throw error("expected ',' or ']', found \(found())")
            }
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                flush(index)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("control character in a string; write it as an escape (\\n, \\t)") }
            if byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            flush(index)
            index += 1
            guard let escaped = current else { throw error("unterminated string") }
            index += 1
            switch escaped {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
            default: throw error("unknown escape '\\\(Character(Unicode.Scalar(escaped)))'", at: index - 2)
            }
            runStart = index
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("expected four hex digits after \\u") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("expected four hex digits after \\u")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func unicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let start = index - 2
        let first = try hex4()
        if (0xD800...0xDBFF).contains(first) {
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("lone surrogate in \\u escape", at: start)
            }
            index += 2
            let second = try hex4()
            guard (0xDC00...0xDFFF).contains(second),
                  let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            else { throw error("invalid surrogate pair in \\u escape", at: start) }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw error("lone surrogate in \\u escape", at: start) }
        return scalar
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
        guard integerDigits > 0 else { throw error("expected digits in a number", at: index) }
        guard !(leadingZero && integerDigits > 1) else { throw error("a number cannot start with 0", at: start) }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("expected digits after the decimal point") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("expected digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number out of range", at: start) }
        return .number(value, literal: text)
    }
}
