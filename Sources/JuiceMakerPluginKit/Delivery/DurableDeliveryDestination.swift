import JuiceMakerCore
import JuicePrimitives

/// Where a durable subscriber sends events: an HTTP endpoint, a program's stdin.
///
/// The runner (`DurableDelivery`) calls `deliver` for one event at a time, in journal
/// order, never concurrently with itself, from a task it cancels at shutdown (a
/// `WindowedDurableDestination` is handed several at once through `send` instead).
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
/// library that waits for an answer up to its timeout), and that takes events in
/// runs: the runner calls `deliverBlocking` on its own thread, never on the
/// cooperative pool, with as many events as it has in order, instead of handing
/// `deliver` one event at a time to a task. That saves the task, two thread
/// hand-offs and the runner's bookkeeping per event, and lets a pipelined
/// destination (the `nats` subscriber) publish ahead. Shutdown cannot cancel it: it
/// must return within its own timeout per event, and return at once when `accepted`
/// says to stop (`DurableDelivery.shutdown` still returns by its deadline).
public protocol BlockingDurableDestination: DurableDestination {
    /// Hands `events` over in order, each as `deliver` would, and returns the failure
    /// that stopped it, or `nil` when all were accepted (or `accepted` said to stop).
    ///
    /// - After each event it accepted, it calls `accepted(n)` with how many of `events`
    ///   it has accepted so far (1, 2, …); the runner keeps its books there (the
    ///   cursor moves per `cursorBatch`). When that returns `false` (shutdown), it
    ///   returns `nil` at once, without offering more.
    /// - A failure is for the first event not accepted, `events[events.startIndex + n]`
    ///   after `n` calls: it is offered again later (same `id`), with those after it.
    /// - `upcoming`: the readable events after `events` in the runner's batch, in
    ///   order, before the `kinds` filter. It may start on them (publish ahead), but
    ///   accepts each only in a later call that offers it.
    /// - Each event comes with its CloudEvents JSON as the journal committed it, when
    ///   the journal keeps it (`text`; else `nil`: encode it).
    func deliverBlocking(
        _ events: ArraySlice<CommittedEvent>, upcoming: ArraySlice<CommittedEvent>, accepted: (Int) -> Bool
    ) -> DeliveryFailure?

    /// How many events the runner reads from the journal at once (it reads the next
    /// ones while these are delivered): `DurableDelivery.batchSize`, the default. A
    /// destination that publishes ahead in large flights may ask for more, so that
    /// its flights, which cannot reach past what the runner holds, stay long.
    var readBatch: Int { get }
}

extension BlockingDurableDestination {
    public var readBatch: Int { DurableDelivery.batchSize }
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
