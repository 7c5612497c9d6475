/// What the whole journal adds up to, with the stock it has led to: figures that only
/// grow as events are committed, so a process that restarts reads them where they were.
///
/// Keys are ids as the journal holds them (`mango-kiwi`, `kiwi`): a row written by a
/// newer `juice` keeps its id even when this version has no such juice.
package struct JournalTotals: Sendable, Equatable {
    /// Juices made, in cups, by juice id (`juiceMade` events' counts).
    package var juicesMade: [String: Int]
    /// Orders refused for lack of fruit, by juice id (`orderFailed` events).
    package var ordersFailed: [String: Int]
    /// Fruit used by the juices made, by fruit id.
    package var fruitConsumed: [String: Int]
    /// The stock when the totals were read, consistent with them.
    package var stock: Stock
    /// The journal's length: the sequence of its last event, 0 when empty.
    package var events: Int64
    /// Bytes the store takes on disk; `nil` for a store that keeps nothing on disk.
    package var storeBytes: Int64?

    package init(
        juicesMade: [String: Int] = [:], ordersFailed: [String: Int] = [:], fruitConsumed: [String: Int] = [:],
        stock: Stock, events: Int64, storeBytes: Int64? = nil
    ) {
        self.juicesMade = juicesMade
        self.ordersFailed = ordersFailed
        self.fruitConsumed = fruitConsumed
        self.stock = stock
        self.events = events
        self.storeBytes = storeBytes
    }

    /// The totals of `events`, folded in order, for a store without a projection of
    /// its own; `stock` is the stock they lead to.
    package init(folding events: some Sequence<EventEnvelope>, stock: Stock) {
        self.init(stock: stock, events: 0)
        for envelope in events {
            self.events = max(self.events, envelope.sequence)
            Self.count(envelope.event, juicesMade: &juicesMade, ordersFailed: &ordersFailed, fruitConsumed: &fruitConsumed)
        }
    }

    /// Adds `event` to the three counters as the totals count it: a juice made adds its
    /// cups and the fruit it used, a failed order adds one; a stock change adds nothing.
    /// For tallies kept elsewhere (the fleet's stream, per machine) that must agree.
    package static func count(
        _ event: JuiceMakerEvent, juicesMade: inout [String: Int], ordersFailed: inout [String: Int], fruitConsumed: inout [String: Int]
    ) {
        switch event {
        case let .juiceMade(juice, count, consumed):
            juicesMade[juice.id, default: 0] += count
            for item in consumed.nonZero { fruitConsumed[item.fruit.id, default: 0] += item.amount }
        case let .orderFailed(juice, _, _):
            ordersFailed[juice.id, default: 0] += 1
        case .stockChanged:
            break
        }
    }
}

/// The port to a store's journal totals (`JournalTotals`): what the `metrics`
/// subscriber and `juice metrics` read. Implemented by `InMemoryStore` and the SQLite
/// store, which answers from its report projection rather than by reading every event.
package protocol JournalTotalsReading: AnyObject, Sendable {
    /// The totals of every event committed so far, with the stock as of the same
    /// moment: one consistent snapshot.
    func journalTotals() throws(StoreError) -> JournalTotals
}
