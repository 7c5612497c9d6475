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

    /// How many delivered events the runner may leave unrecorded before it writes the
    /// cursor (one store transaction). 1, the default: after every event, so a crash
    /// resends at most the event under way. A destination whose resends are cheap and
    /// deduplicated (the `nats` subscriber: `Nats-Msg-Id`) may say more; the cursor is
    /// still written at the end of each journal batch, before waiting, on a failure and
    /// at shutdown, and still only past events the destination accepted, in order.
    var cursorBatch: Int { get }
}

extension DurableDestination {
    public var cursorBatch: Int { 1 }
}

/// A destination whose delivery is blocking work with a bound of its own (a client
/// library that waits for an answer up to its timeout): the runner calls
/// `deliverBlocking` on its own thread, never on the cooperative pool, instead of
/// handing `deliver` to a task, which saves the task and two thread hand-offs per
/// event. Shutdown cannot cancel it: it must return within its own timeout, after
/// which the runner stops (`DurableDelivery.shutdown` still returns by its deadline).
public protocol BlockingDurableDestination: DurableDestination {
    /// Hands `envelope` over, or throws why not, as `deliver` does; may block, up to
    /// the destination's own timeout. `upcoming`: the events after it in the batch the
    /// runner holds, in order, before its `kinds` filter (those it leaves out are not
    /// offered): a destination may start on them early (publish ahead), but must
    /// accept each only when offered.
    func deliverBlocking(_ envelope: EventEnvelope, upcoming: ArraySlice<EventEnvelope>) throws(DeliveryFailure)
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
