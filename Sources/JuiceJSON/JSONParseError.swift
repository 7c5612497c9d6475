/// JSON text that `JSONParser` does not take: where (a byte offset in its UTF-8) and why.
///
/// The offset is all the parser keeps; `location(in:)` turns it into a line and column
/// for a person, when the error is shown.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the text was refused.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        case textAfterValue
        /// An object or array inside this many others.
        case nestedTooDeep(Int)
        case expectedValue
        case expectedKey
        case expectedColon
        case expectedCommaOrBrace
        case expectedCommaOrBracket
        /// A key that an earlier member of the same object has (`DuplicateKeys.refuse`).
        case duplicateKey(String)
        case unterminatedString
        /// A byte below 0x20 between a string's quotes.
        case controlCharacter
        /// A backslash before this byte, which names no escape.
        case unknownEscape(UInt8)
        case expectedHexDigits
        case loneSurrogate
        case invalidSurrogatePair
        /// No digit where the integer part of a number starts.
        case expectedDigit
        case leadingZero
        case expectedFractionDigit
        case expectedExponentDigit
        /// A number beyond `Double`'s range (`Numbers.doubles`).
        case numberOutOfRange

        public var description: String {
            switch self {
            case .textAfterValue: "text after the value"
            case .nestedTooDeep(let levels): "more than \(levels) objects and arrays nested"
            case .expectedValue: "expected a value"
            case .expectedKey: "expected a key (a string)"
            case .expectedColon: "expected : after a key"
            case .expectedCommaOrBrace: "expected , or } after an object member"
            case .expectedCommaOrBracket: "expected , or ] after an array element"
            case .duplicateKey(let key): "duplicate key \(JSONTextWriter.quoted(key))"
            case .unterminatedString: "unterminated string"
            case .controlCharacter: "control character in a string (write it as an escape)"
            case .unknownEscape: "unknown escape"
            case .expectedHexDigits: "expected four hex digits after \\u"
            case .loneSurrogate, .invalidSurrogatePair: "lone surrogate escape"
            case .expectedDigit: "expected a digit"
            case .leadingZero: "leading zero in a number"
            case .expectedFractionDigit: "expected a digit after the decimal point"
            case .expectedExponentDigit: "expected a digit in the exponent"
            case .numberOutOfRange: "number out of range"
            }
        }
    }

    /// Where the parser stopped: the 0-based offset of the byte at fault in the text's
    /// UTF-8, or its length when the text ended too soon.
    ///
    /// A problem in a string is at the byte that makes it wrong (a lone surrogate at its
    /// escape's backslash); a leading zero at that zero; a duplicate key at its quote;
    /// a number out of range at its first byte; any other at the token where something
    /// else was expected.
    public let offset: Int
    public let problem: Problem

    public init(offset: Int, problem: Problem) {
        self.offset = offset
        self.problem = problem
    }

    /// "malformed JSON at byte N: problem", N counted from 1.
    public var description: String { "malformed JSON at byte \(offset + 1): \(problem)" }

    /// The 1-based line and column of `offset` in `text`, the text this error is about.
    ///
    /// Lines end at line feeds. A column counts Unicode scalars from the start of its
    /// line, the first being 1; a UTF-8 byte-order mark at the start of the text is not
    /// counted. Scalars, not grapheme clusters: they do not depend on the Unicode
    /// version, and an editor's "go to column" counts them too.
    public func location(in text: String) -> (line: Int, column: Int) {
        let start = text.utf8.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var column = 1
        for byte in text.utf8.dropFirst(start).prefix(max(0, offset - start)) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                // Every byte that is not a UTF-8 continuation byte starts a scalar.
                column += 1
            }
        }
        return (line, column)
    }
}
