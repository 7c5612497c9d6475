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

/// The port to where stock lives. Implementations: `InMemoryStore` (here) and the
/// SQLite store (module `SQLiteStore`).
///
/// A store is also the journal's writer: `commit` writes the new stock and appends
/// the change's events in **one** atomic step, so no reader, in this process or
/// another, ever sees one without the other.
public protocol StockStore: AnyObject, Sendable {
    /// The stock as of the last committed change.
    func stock() throws(StoreError) -> Stock

    /// Atomically reads the stock and the next journal sequence, asks `decide` what
    /// to write, and writes it: the stock and every event, or nothing.
    ///
    /// `decide` runs inside the transaction, exactly once per call, and may throw to
    /// abandon it; its error is rethrown unchanged and nothing is written. Store
    /// failures throw `StoreError`. Quantities are never negative; a `decide` that
    /// returns a negative quantity is a programming error the store rejects.
    func commit(_ decide: (_ current: Stock, _ nextSequence: Int64) throws -> StoreChange) throws -> StoreChange
}
