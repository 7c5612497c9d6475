import CNATSLoader
import Locking

/// The refused asynchronous publishes of a connection, by message id (`Nats-Msg-Id`):
/// libnats' thread records them (`publishErrorHandler`), the publishing thread takes
/// them once libnats says every publish has its answer (`NATSConnection.completePublishes`).
///
/// Only failures come here. A PubAck that stores the message is counted by libnats
/// and nothing else: no code of ours runs for it, no thread is woken for it, and the
/// publishing thread is woken once, when the last outstanding publish is answered.
final class PublishFailures: Sendable {
    private let failures = Locked<[String: NATSError]>([:])

    /// Called on libnats' thread.
    func record(_ id: String, _ error: NATSError) {
        failures.withLock { failures in
            // The first answer for an id is the one that counts.
            if failures[id] == nil { failures[id] = error }
        }
    }

    /// The failures recorded since the last call.
    func take() -> [String: NATSError] {
        failures.withLock { failures in
            defer { failures = [:] }
            return failures
        }
    }
}

extension NATSError {
    /// The failure libnats reported for one asynchronous publish to `subject`.
    static func publishFailure(
        subject: String, status: natsStatus, text: UnsafePointer<CChar>?, code: jsErrCode
    ) -> NATSError {
        let statusText = nats.pointee.natsStatus_GetText(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
        var line = "publishing to \(subject): \(statusText)"
        if let text {
            let detail = String(cString: text)
            if detail != statusText { line += " (\(detail))" }
        }
        if code.rawValue != 0 { line += " [JetStream error \(code.rawValue)]" }
        let kind: NATSError.Kind
        switch status {
        case NATS_TIMEOUT: kind = .timeout
        case NATS_NO_RESPONDERS:
            kind = .noStream
            line += "; no stream takes the subject, and the stream is checked (and created) again on the next attempt"
        default: kind = .unavailable
        }
        return NATSError(line, kind: kind)
    }
}

/// The message id a published message carries in `Nats-Msg-Id`.
func publishedMessageID(_ message: OpaquePointer) -> String? {
    var idPointer: UnsafePointer<CChar>?
    guard nats.pointee.natsMsgHeader_Get(message, "Nats-Msg-Id", &idPointer) == NATS_OK, let idPointer else { return nil }
    return String(cString: idPointer)
}

/// libnats' callback for an asynchronous publish that failed (refused by the stream, or
/// no responders), on its own thread: hands the failure to the `PublishFailures` in
/// `closure`. libnats destroys the message after the call.
let publishErrorHandler: jsPubAckErrHandler = { _, failure, closure in
    guard let closure, let failure, let message = failure.pointee.Msg, let id = publishedMessageID(message) else { return }
    let failures = Unmanaged<PublishFailures>.fromOpaque(closure).takeUnretainedValue()
    let subject = nats.pointee.natsMsg_GetSubject(message).map { String(cString: $0) } ?? ""
    failures.record(
        id, .publishFailure(subject: subject, status: failure.pointee.Err, text: failure.pointee.ErrText, code: failure.pointee.ErrCode))
}
