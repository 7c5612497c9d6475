import CNATSLoader
import JuicePrimitives

/// A libnats failure as one line: what was being done, libnats' own text, and what to
/// do about it. Never contains a token or a credential.
package struct NATSError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in one line.
    package let message: String
    /// The kind of failure, for callers that decide what to do (retry, disable, exit 78).
    package let kind: Kind

    package enum Kind: Sendable, Equatable {
        /// The server could not be reached or did not answer in time: try again later.
        case unavailable
        /// The server refused who we are (token, credentials).
        case authorization
        /// The stream exists with a configuration this client cannot use.
        case streamMismatch
        /// A subscription or fetch found nothing before its timeout; a publish got no
        /// PubAck within it.
        case timeout
        /// No stream takes the subject published to (the stream was deleted, say).
        case noStream
        /// A `tls://` server offered no TLS (a plain server): never used in plain text.
        case tlsRequired
        /// A file the configuration names (a TLS file, the credentials) that the file
        /// gate refused or libnats could not use: a FIFO, a directory, not PEM.
        case configuration
        /// Anything else.
        case other
    }

    package init(_ message: String, kind: Kind) {
        self.message = message
        self.kind = kind
    }

    package var description: String { message }

    /// `status` while `doing`, with libnats' last error text for this thread.
    static func from(_ status: natsStatus, doing: String, jsError: jsErrCode = jsErrCode(0)) -> NATSError {
        let text = nats.pointee.natsStatus_GetText(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
        var detail = ""
        if let last = nats.pointee.nats_GetLastError(nil) {
            // "(conn.c:2088): No server available for connection": the text without its source position.
            var lastText = String(cString: last)
            if lastText.hasPrefix("("), let end = lastText.firstRange(ofText: "): ") { lastText = String(lastText[end.upperBound...]) }
            if !lastText.isEmpty, lastText != text { detail = lastText }
        }
        let kind: Kind
        let advice: String
        switch status {
        case NATS_NO_SERVER, NATS_CONNECTION_CLOSED, NATS_CONNECTION_DISCONNECTED, NATS_STALE_CONNECTION, NATS_IO_ERROR,
            NATS_NO_RESPONDERS:
            kind = .unavailable
            advice = "is nats-server -js running there?"
        case NATS_SECURE_CONNECTION_WANTED:
            kind = .tlsRequired
            advice = "the server offers no TLS and a tls:// URL requires it: enable TLS on the server, or write nats:// if plain text is meant"
        case NATS_TIMEOUT:
            kind = .timeout
            advice = "the server did not answer in time"
        case NATS_NOT_PERMITTED:
            kind = .authorization
            advice = "check the token or the credentials file"
        default:
            if jsError.rawValue == 10059 {
                kind = .noStream
                advice = "no machine has published to it yet, or fleet.stream names another stream"
            } else if jsError.rawValue == 10093 {
                kind = .streamMismatch
                advice = "the stream takes other subjects: set \"stream\" or \"subjectPrefix\" to what the machines publish"
            } else if detail.lowercased().containsText("authorization") || text.lowercased().containsText("authorization") {
                kind = .authorization
                advice = "check the token or the credentials file"
            } else {
                kind = .other
                advice = ""
            }
        }
        var line = "\(doing): \(text)"
        if !detail.isEmpty { line += " (\(Self.oneLine(detail)))" }
        if jsError.rawValue != 0 { line += " [JetStream error \(jsError.rawValue)]" }
        if !advice.isEmpty { line += "; \(advice)" }
        return NATSError(line, kind: kind)
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).first.map { String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) }
            ?? ""
    }
}
