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

    public init(sequence: Int64, id: EventID, time: Date, source: String, changeID: EventID, event: JuiceMakerEvent) {
        self.sequence = sequence
        self.id = id
        self.time = time
        self.source = source
        self.changeID = changeID
        self.event = event
    }

    /// The greatest sequence a journal gives: 2^53, the largest integer every JSON
    /// reader holds exactly (a receiver in JavaScript reads numbers as doubles). A store
    /// refuses an event past it (`StoreError.Reason.sequencesExhausted`), and recovery
    /// takes a sequence past it read from a damaged file for damage.
    public static let greatestSequence: Int64 = 1 << 53

    /// The default CloudEvents `source`.
    public static let defaultSource = "/juice-maker"
}
