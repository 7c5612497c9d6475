/// Standard base64 (RFC 4648, section 4): the `+` and `/` alphabet, padded with `=` to
/// a multiple of four characters. For `Authorization: Basic` values, and for webhook
/// signatures and the secrets they are made with.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".unicodeScalars)

    /// `bytes` in base64: every 3 bytes as 4 characters, a last 1 or 2 bytes as 2 or 3
    /// characters and `==` or `=`.
    package static func encoded(_ bytes: [UInt8]) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for position in 0..<4 {
                if position <= count {
                    result.unicodeScalars.append(alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)])
                } else {
                    result.unicodeScalars.append("=")
                }
            }
            index += count
        }
        return result
    }

    /// The bytes of standard base64 text, padding optional; `nil` for anything else.
    /// Stricter than the Standard Webhooks reference library, which skips characters
    /// outside the alphabet (`-`, `_`, spaces) and so would sign with a different key
    /// than a secret's text suggests: such text is refused here. Trailing bits of a
    /// last partial group are ignored, as the reference library does.
    package static func decoded(_ text: Substring) -> [UInt8]? {
        var body = text.utf8[...]
        var padding = 0
        while body.last == UInt8(ascii: "="), padding < 2 {
            body.removeLast()
            padding += 1
        }
        guard !body.isEmpty, body.count % 4 != 1, padding == 0 || (body.count + padding) % 4 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in body {
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(character - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            default: return nil
            }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        return bytes
    }
}
