import JuiceMakerCore

/// What the metrics show, read from the store: the journal's totals and, for each
/// durable subscriber the journal keeps books for, how far behind it is, what it gave
/// up on and when it last delivered. The `metrics` subscriber and `juice metrics`
/// read the same figures through `read(totals:journal:)`.
package struct MetricsFigures: Sendable, Equatable {
    /// One durable subscriber's standing.
    package struct Subscriber: Sendable, Equatable {
        package var name: String
        /// Journal events after its cursor.
        package var lag: Int64
        /// Dead letters waiting for `juice subscribers retry --dead-letters`.
        package var deadLetters: Int
        /// When it last delivered an event (Unix seconds); `nil` if it never has.
        package var lastSuccess: Double?

        package init(name: String, lag: Int64, deadLetters: Int, lastSuccess: Double?) {
            self.name = name
            self.lag = lag
            self.deadLetters = deadLetters
            self.lastSuccess = lastSuccess
        }
    }

    package var totals: JournalTotals
    /// By name.
    package var subscribers: [Subscriber]

    package init(totals: JournalTotals, subscribers: [Subscriber]) {
        self.totals = totals
        self.subscribers = subscribers
    }

    /// The totals, then every subscriber with a cursor or dead letters in `journal`
    /// (a durable subscriber has a cursor from its first delivery on). Lag is counted
    /// against the totals' journal length, so the two agree.
    package static func read(totals: any JournalTotalsReading, journal: any DeliveryJournal) throws(StoreError) -> MetricsFigures {
        let sums = try totals.journalTotals()
        let cursors = try journal.cursors()
        var deadLetters: [String: Int] = [:]
        for letter in try journal.deadLetters(for: nil) { deadLetters[letter.subscriber, default: 0] += 1 }
        var subscribers: [Subscriber] = []
        for name in Set(cursors.keys).union(deadLetters.keys).sorted() {
            subscribers.append(
                Subscriber(
                    name: name, lag: max(0, sums.events - (cursors[name] ?? 0)), deadLetters: deadLetters[name] ?? 0,
                    lastSuccess: try journal.lastDelivery(for: name)))
        }
        return MetricsFigures(totals: sums, subscribers: subscribers)
    }
}
