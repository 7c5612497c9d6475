import JuiceMakerCore

/// Where a durable subscriber sends events: an HTTP endpoint, a program's stdin.
///
/// The runner (`DurableDelivery`) calls `deliver` for one event at a time, in journal
/// order, never concurrently with itself, from a task it cancels at shutdown.
/// Returning means the event is handed over for good (the cursor moves past it);
/// throwing means it was not, and the same event (same `id`) is offered again later.
public protocol DurableDestination: Sendable {
    /// Hands `envelope` over, or throws why not. Should return promptly once the
    /// calling task is cancelled.
    func deliver(_ envelope: EventEnvelope) async throws(DeliveryFailure)
}

/// Why a delivery did not happen, and what the runner should do about it.
public struct DeliveryFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in one line, in both languages. Must never contain a secret.
    public let message: PluginMessage
    /// `message` in English: what the journal keeps as a retry's or dead letter's
    /// last error.
    public var reason: String { message.english }
    /// The destination asked to wait this many seconds before the next attempt
    /// (`Retry-After`); `nil` follows the retry schedule.
    public let retryAfter: Double?
    /// The destination refused for good (HTTP 410 Gone): stop delivering to it until a
    /// person re-enables it. Nothing is dead-lettered and the cursor stays.
    public let isPermanent: Bool

    public init(_ message: PluginMessage, retryAfter: Double? = nil, isPermanent: Bool = false) {
        self.message = message
        self.retryAfter = retryAfter
        self.isPermanent = isPermanent
    }

    public var description: String { reason }
}
