import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit

/// JSON text that is not valid JSON: where (1-based line and column) and what was expected.
///
/// A column counts Unicode scalars (code points) from the start of the line, the first
/// being 1; a byte-order mark at the start of the file is not counted
/// (`JSONParseError.location(in:)`).
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    package let line: Int
    package let column: Int
    package let problem: JSONProblem

    package var description: String { "malformed JSON at line \(line), column \(column): \(problem)" }
}

/// Reads the config's JSON into a `JSONValue`, keeping object keys in file order and
/// every number as written (`.number`, its text): the JSON module's `JSONParser` with
/// the config's policy (`options`).
///
/// Strict: no comments, no trailing commas, no duplicate keys in one object (keys are
/// compared code point by code point, RFC 8259 section 8.3, so `"\u00e9"` and
/// `"e\u0301"` are two keys), at most 64 objects and arrays nested, no number beyond
/// `Double`'s range. Every error names the line and column (`JSONSyntaxError`).
package enum JSONReader {
    static let options = JSONParser.Options(duplicateKeys: .refuse, maximumDepth: 64, numbers: .doubles)

    /// Parses one JSON document (surrounding whitespace allowed).
    package static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        do {
            return try JSONParser.parse(text, options: options)
        } catch {
            throw syntaxError(error, in: text)
        }
    }

    /// `error` as a person reads it: its line and column, and what was found there.
    private static func syntaxError(_ error: JSONParseError, in text: String) -> JSONSyntaxError {
        let byte = text.utf8.dropFirst(error.offset).first
        let found: JSONProblem.Found =
            switch byte {
            case nil: .endOfFile
            case let byte? where byte >= 0x21 && byte < 0x7F: .character(Character(Unicode.Scalar(byte)))
            default: .unexpectedCharacter
            }
        var offset = error.offset
        let problem: JSONProblem
        switch error.problem {
        case .textAfterValue: problem = .textAfterValue
        case .nestedTooDeep(let levels): problem = .nestedTooDeep(levels)
        case .expectedValue: problem = .expectedValue(found)
        case .expectedKey: problem = .expectedKey(found)
        case .expectedColon: problem = .expectedColon(found)
        case .expectedCommaOrBrace: problem = .expectedCommaOrBrace(found)
        case .expectedCommaOrBracket: problem = .expectedCommaOrBracket(found)
        case .duplicateKey(let key): problem = .duplicateKey(TerminalText.escaped(key))
        case .unterminatedString: problem = .unterminatedString
        case .controlCharacter: problem = .controlCharacter
        case .unknownEscape(let letter): problem = .unknownEscape(TerminalText.escaped(String(Unicode.Scalar(letter))))
        case .expectedHexDigits: problem = .expectedHexDigits
        case .loneSurrogate: problem = .loneSurrogate
        case .invalidSurrogatePair: problem = .invalidSurrogatePair
        case .expectedDigit: problem = .expectedDigits
        case .leadingZero:
            problem = .leadingZero
            // The config points at the number's first byte, its sign included.
            if offset > 0, text.utf8.dropFirst(offset - 1).first == UInt8(ascii: "-") { offset -= 1 }
        case .expectedFractionDigit: problem = .expectedFractionDigits
        case .expectedExponentDigit: problem = .expectedExponentDigits
        case .numberOutOfRange: problem = .numberOutOfRange
        }
        let (line, column) = JSONParseError(offset: offset, problem: error.problem).location(in: text)
        return JSONSyntaxError(line: line, column: column, problem: problem)
    }
}
