/// What one committed change writes: the new stock and its journal entries.
public struct StoreChange: Sendable, Equatable {
    /// The stock after the change (equal to the stock before for a failed order).
    public var stock: Stock
    /// The events to append, numbered `nextSequence`, `nextSequence + 1`, … in order.
    public var events: [EventEnvelope]

    public init(stock: Stock, events: [EventEnvelope]) {
        self.stock = stock
        self.events = events
    }
}

/// Where the journal ends, as a commit sees it inside its transaction.
public struct JournalPosition: Sendable, Equatable {
    /// The sequence the change's first event gets.
    public let nextSequence: Int64
    /// The id of the journal's last event; `nil` when the journal is empty. Every new
    /// id must be greater (ids increase in journal order, across processes).
    public let lastEventID: EventID?

    public init(nextSequence: Int64, lastEventID: EventID?) {
        self.nextSequence = nextSequence
        self.lastEventID = lastEventID
    }

    /// Whether `events`, appended here, keep sequences gapless and ids increasing.
    /// Returns the first problem, or `nil`.
    package func problem(appending events: [EventEnvelope]) -> StoreError.Reason? {
        var previous = lastEventID
        for (offset, envelope) in events.enumerated() {
            if envelope.sequence != nextSequence + Int64(offset) {
                return .sequenceRefused(found: envelope.sequence, expected: nextSequence + Int64(offset))
            }
            if let previous, envelope.id <= previous {
                return .idRefused(envelope.id, previous: previous)
            }
            previous = envelope.id
        }
        return nil
    }
}

/// The port to where stock lives. Implementations: `InMemoryStore` (here) and the
/// SQLite store (module `SQLiteStore`).
///
/// A store is also the journal's writer: `commit` writes the new stock and appends
/// the change's events in **one** atomic step, so no reader, in this process or
/// another, ever sees one without the other.
public protocol StockStore: AnyObject, Sendable {
    /// The stock as of the last committed change.
    func stock() throws(StoreError) -> Stock

    /// Atomically reads the stock and where the journal ends, asks `decide` what to
    /// write, and writes it: the stock and every event, or nothing. Events must take
    /// the sequences from `nextSequence` on and ids greater than `lastEventID`, in
    /// order; anything else is refused as a bug in the caller.
    ///
    /// `decide` runs inside the transaction, exactly once per call, and may throw to
    /// abandon it; its error is rethrown unchanged and nothing is written. Store
    /// failures throw `StoreError`. Quantities are never negative; a `decide` that
    /// returns a negative quantity is a programming error the store rejects.
    func commit(_ decide: (_ current: Stock, _ position: JournalPosition) throws -> StoreChange) throws -> StoreChange
}
