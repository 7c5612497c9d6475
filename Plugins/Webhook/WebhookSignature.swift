/// Signs webhook requests the Standard Webhooks way (standardwebhooks.com):
///
/// ```
/// webhook-id: <event id>
/// webhook-timestamp: <Unix seconds>
/// webhook-signature: v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>")>
/// ```
/// A receiver recomputes the signature over the exact body bytes it received and
/// compares; it also rejects timestamps far from its clock (replays).
///
/// The key never leaves this value: `description` and every error omit it.
public struct WebhookSignature: Sendable, CustomStringConvertible {
    private let key: [UInt8]

    /// The key from a configured secret: base64 key material, with or without the
    /// `whsec_` prefix, padding optional. This is how the Standard Webhooks libraries
    /// read a secret (`Webhook("whsec_…")` and `Webhook("…")` alike: the reference
    /// Python library strips `whsec_`, appends `==` and base64-decodes), so a receiver
    /// that follows the spec verifies what we sign. Text that is not base64 is refused
    /// rather than used as UTF-8 bytes: no library would read it that way. Returns `nil`
    /// for an empty secret or one that does not decode to at least one byte.
    public init?(secret: String) {
        let material = secret.hasPrefix("whsec_") ? Substring(secret.dropFirst(6)) : Substring(secret)
        guard let bytes = Self.base64Decoded(material), !bytes.isEmpty else { return nil }
        key = bytes
    }

    /// Standard base64 (RFC 4648, section 4), padding optional. Stricter than the
    /// reference library, which skips characters outside the alphabet (`-`, `_`,
    /// spaces) and so would sign with a different key than the text suggests: such a
    /// secret is refused here. Trailing bits of a last partial group are ignored, as
    /// the reference library does.
    static func base64Decoded(_ text: Substring) -> [UInt8]? {
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

    /// The `webhook-signature` value for one request: `v1,<base64>`.
    public func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message += body
        return "v1," + Base64.encoded(HMACSHA256.authenticationCode(key: key, message: message))
    }

    /// Whether `header` (one or more space-separated `v1,<base64>` signatures, as
    /// Standard Webhooks allows during key rotation) holds the signature of this request.
    public func verify(header: String, id: String, timestamp: Int64, body: [UInt8]) -> Bool {
        let expected = Array(signature(id: id, timestamp: timestamp, body: body).utf8)
        return header.split(separator: " ").contains { candidate in
            let bytes = Array(candidate.utf8)
            guard bytes.count == expected.count else { return false }
            // Constant time over the candidate: no early exit on the first difference.
            return zip(bytes, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }

    public var description: String { "WebhookSignature(key: <hidden>)" }
}
