import JuiceHTTP

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
package struct WebhookSignature: Sendable, CustomStringConvertible {
    private let key: [UInt8]

    /// The key from a configured secret: base64 key material, with or without the
    /// `whsec_` prefix, padding optional. This is how the Standard Webhooks libraries
    /// read a secret (`Webhook("whsec_…")` and `Webhook("…")` alike: the reference
    /// Python library strips `whsec_`, appends `==` and base64-decodes), so a receiver
    /// that follows the spec verifies what we sign. Text that is not base64 is refused
    /// rather than used as UTF-8 bytes: no library would read it that way. Returns `nil`
    /// for an empty secret or one that does not decode to at least one byte.
    package init?(secret: String) {
        let material = secret.hasPrefix("whsec_") ? Substring(secret.dropFirst(6)) : Substring(secret)
        guard let bytes = Base64.decoded(material), !bytes.isEmpty else { return nil }
        key = bytes
    }

    /// The `webhook-signature` value for one request: `v1,<base64>`.
    package func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message += body
        return "v1," + Base64.encoded(HMACSHA256.authenticationCode(key: key, message: message))
    }

    /// Whether `header` (one or more space-separated `v1,<base64>` signatures, as
    /// Standard Webhooks allows during key rotation) holds the signature of this request.
    package func verify(header: String, id: String, timestamp: Int64, body: [UInt8]) -> Bool {
        let expected = Array(signature(id: id, timestamp: timestamp, body: body).utf8)
        return header.split(separator: " ").contains { candidate in
            let bytes = Array(candidate.utf8)
            guard bytes.count == expected.count else { return false }
            // Constant time over the candidate: no early exit on the first difference.
            return zip(bytes, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }

    package var description: String { "WebhookSignature(key: <hidden>)" }
}
