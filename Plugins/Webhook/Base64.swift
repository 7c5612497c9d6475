/// Standard base64 (RFC 4648, section 4): the `+` and `/` alphabet, padded with `=` to
/// a multiple of four characters. For the `webhook-signature` and `Authorization: Basic`
/// values; secrets are read by `WebhookSignature.base64Decoded`.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".unicodeScalars)

    /// `bytes` in base64: every 3 bytes as 4 characters, a last 1 or 2 bytes as 2 or 3
    /// characters and `==` or `=`.
    static func encoded(_ bytes: [UInt8]) -> String {
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
}
