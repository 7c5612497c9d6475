/// A `\u` escape of a JSON string (RFC 8259, section 7), read the same way by the core's
/// `JSONParser` and the CLI's config reader: four hex digits, and a high surrogate only
/// with a `\u` low surrogate after it (a `String` cannot hold half of a pair).
package enum JSONUnicodeEscape {
    package enum Failure: Error, Equatable {
        /// Not four hex digits: `index` is at the first byte that is not one (or the end).
        case expectedHexDigits
        /// A high surrogate with no `\u` escape after it, or a low surrogate alone.
        case loneSurrogate
        /// A high surrogate followed by a `\u` escape that is not a low surrogate.
        case invalidSurrogatePair
    }

    /// The scalar of the escape whose `\u` ends just before `index`; `index` is moved
    /// past it (and past the low surrogate's `\uXXXX` of a pair).
    package static func read(_ bytes: [UInt8], at index: inout Int) throws(Failure) -> Unicode.Scalar {
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
