#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An event as journaled and published: what happened, plus where it sits.
public struct EventEnvelope: Sendable, Hashable {
    /// Position in the journal: 1, 2, 3… without gaps.
    public let sequence: Int64
    /// Unique id (UUIDv7); the idempotency key for at-least-once delivery.
    public let id: EventID
    /// When the change was committed.
    public let time: Date
    /// The CloudEvents `source` (a URI reference naming this machine).
    public let source: String
    /// Shared by every event of one change (an order, a restock, an applied edit).
    public let changeID: EventID
    /// What happened.
    public let event: JuiceMakerEvent
    /// The sequence the machine that made it gave it in its own journal: `sequence` for
    /// an event of this machine; for one read from the fleet's stream (where `sequence`
    /// is its place among what this process read) the machine's, as it published it.
    public let publishedSequence: Int64
    /// Its sequence in the NATS stream it was read from; `nil` for an event of this
    /// machine's own journal.
    public let streamSequence: Int64?

    /// - Parameters:
    ///   - sequence: its position in the journal it is read from.
    ///   - id: its unique id.
    ///   - time: when the change was committed.
    ///   - source: the machine, as a CloudEvents `source`.
    ///   - changeID: the change it belongs to.
    ///   - event: what happened.
    ///   - publishedSequence: the machine's own sequence, when `sequence` is not it (an
    ///     event read from the fleet's stream); `nil`: `sequence`.
    ///   - streamSequence: its sequence in the stream it was read from, if it was.
    public init(
        sequence: Int64, id: EventID, time: Date, source: String, changeID: EventID, event: JuiceMakerEvent,
        publishedSequence: Int64? = nil, streamSequence: Int64? = nil
    ) {
        self.sequence = sequence
        self.id = id
        self.time = time
        self.source = source
        self.changeID = changeID
        self.event = event
        self.publishedSequence = publishedSequence ?? sequence
        self.streamSequence = streamSequence
    }

    /// The greatest sequence a journal gives: 2^53, the largest integer every JSON
    /// reader holds exactly (a receiver in JavaScript reads numbers as doubles). A store
    /// refuses an event past it (`StoreError.Reason.sequencesExhausted`), and recovery
    /// takes a sequence past it read from a damaged file for damage.
    package static let greatestSequence: Int64 = 1 << 53

    /// The default CloudEvents `source`.
    public static let defaultSource = "/juice-maker"
}
