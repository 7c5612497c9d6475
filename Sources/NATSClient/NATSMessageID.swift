/// A published message's id, which JetStream deduplicates by (`Nats-Msg-Id`), as
/// `NATSConnection.publishAsync` hands it to libnats: its text as a C string. A caller
/// whose ids are values (an event id) conforms them, and makes the text without
/// allocating a string for each message.
package protocol NATSMessageID {
    /// Runs `body` with the id's text, NUL-terminated.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result
}

extension String: NATSMessageID {}
