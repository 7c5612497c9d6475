/// What the journal remembers about a durable subscriber's failing event, so the
/// retry schedule holds across processes: a `juice order` that fails to deliver
/// leaves the next attempt's time for whichever process runs next.
package struct DeliveryRetryState: Sendable, Equatable {
    /// The journal sequence of the event the attempts were for. A state whose
    /// sequence is not the subscriber's next event is stale and ignored.
    package var sequence: Int64
    /// Failed attempts so far (at least 1).
    package var attempts: Int
    /// When the next attempt is due, in Unix seconds.
    package var nextAttemptAt: Double
    /// Why the last attempt failed, in one line. Never holds a secret.
    package var lastError: String
    /// Whether the destination refused for good (HTTP 410 Gone): no attempts are made
    /// until a person runs `juice subscribers retry`.
    package var disabled: Bool

    package init(sequence: Int64, attempts: Int, nextAttemptAt: Double, lastError: String, disabled: Bool = false) {
        self.sequence = sequence
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.disabled = disabled
    }
}
