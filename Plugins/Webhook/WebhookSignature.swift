import Foundation

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

    /// The key from a configured secret: `whsec_<base64>` is decoded (the Standard
    /// Webhooks form); anything else is used as raw UTF-8 bytes. Returns `nil` for an
    /// empty secret or a `whsec_` secret whose base64 part does not decode.
    public init?(secret: String) {
        if secret.hasPrefix("whsec_") {
            guard let bytes = Data(base64Encoded: String(secret.dropFirst(6))), !bytes.isEmpty else { return nil }
            key = Array(bytes)
        } else {
            guard !secret.isEmpty else { return nil }
            key = Array(secret.utf8)
        }
    }

    /// The `webhook-signature` value for one request: `v1,<base64>`.
    public func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message += body
        return "v1," + Data(HMACSHA256.authenticationCode(key: key, message: message)).base64EncodedString()
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
