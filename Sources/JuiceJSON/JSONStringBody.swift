/// A `\u` escape of a JSON string (RFC 8259, section 7): four hex digits, and a high
/// surrogate only with a `\u` low surrogate after it (a `String` cannot hold half of a
/// pair).
enum JSONUnicodeEscape {
    enum Failure: Error, Equatable {
        /// Not four hex digits: `index` is at the first byte that is not one (or the end).
        case expectedHexDigits
        /// A high surrogate with no `\u` escape after it, or a low surrogate alone.
        case loneSurrogate
        /// A high surrogate followed by a `\u` escape that is not a low surrogate.
        case invalidSurrogatePair
    }

    /// The scalar of the escape whose `\u` ends just before `index`; `index` is moved
    /// past it (and past the low surrogate's `\uXXXX` of a pair).
    static func read(_ bytes: [UInt8], at index: inout Int) throws(Failure) -> Unicode.Scalar {
        let first = try hex4(bytes, at: &index)
        if (0xD800...0xDBFF).contains(first) {
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw .loneSurrogate
            }
            index += 2
            let second = try hex4(bytes, at: &index)
            guard (0xDC00...0xDFFF).contains(second),
                let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            else { throw .invalidSurrogatePair }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw .loneSurrogate }
        return scalar
    }

    private static func hex4(_ bytes: [UInt8], at index: inout Int) throws(Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw .expectedHexDigits }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw .expectedHexDigits
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}

/// A JSON string (RFC 8259, section 7) read from its opening quote: no raw control
/// characters, only the escapes the RFC names, `\u` escapes by `JSONUnicodeEscape`.
enum JSONStringBody {
    /// Why a string was refused, and the byte (0-based) the message should point at.
    struct Failure: Error, Equatable {
        enum Kind: Equatable {
            /// The text ends before the closing quote (`position` is its end).
            case unterminated
            /// A byte below 0x20 between the quotes.
            case controlCharacter
            /// A backslash before this byte, which names no escape (`position` is the backslash).
            case unknownEscape(UInt8)
            /// `\u` without four hex digits (`position` is the first byte that is not one).
            case expectedHexDigits
            /// Half of a surrogate pair (`position` is the escape's backslash).
            case loneSurrogate
            /// A high surrogate followed by an escape that is not a low one (the first backslash).
            case invalidSurrogatePair
        }

        let kind: Kind
        let position: Int
    }

    /// The string's content: the bytes between the quotes when it had no escape (nothing
    /// copied), or its UTF-8 with the escapes decoded.
    enum Content: Equatable {
        case plain(Range<Int>)
        case decoded([UInt8])
    }

    /// Reads the string whose opening quote is at `index`; `index` is left after its
    /// closing quote.
    static func read(_ bytes: [UInt8], at index: inout Int) throws(Failure) -> Content {
        index += 1
        var utf8: [UInt8] = []
        var escaped = false
        var runStart = index
        while true {
            guard index < bytes.count else { throw Failure(kind: .unterminated, position: index) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                guard escaped else { return .plain(runStart..<index) }
                utf8.append(contentsOf: bytes[runStart..<index])
                return .decoded(utf8)
            }
            if byte < 0x20 { throw Failure(kind: .controlCharacter, position: index) }
            if byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            escaped = true
            utf8.append(contentsOf: bytes[runStart..<index])
            let backslash = index
            index += 1
            guard index < bytes.count else { throw Failure(kind: .unterminated, position: index) }
            let letter = bytes[index]
            index += 1
            switch letter {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(letter)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                let scalar: Unicode.Scalar
                do {
                    scalar = try JSONUnicodeEscape.read(bytes, at: &index)
                } catch {
                    switch error {
                    case .expectedHexDigits: throw Failure(kind: .expectedHexDigits, position: index)
                    case .loneSurrogate: throw Failure(kind: .loneSurrogate, position: backslash)
                    case .invalidSurrogatePair: throw Failure(kind: .invalidSurrogatePair, position: backslash)
                    }
                }
                UTF8.encode(scalar) { utf8.append($0) }
            default: throw Failure(kind: .unknownEscape(letter), position: backslash)
            }
            runStart = index
        }
    }
}
