import JuiceMakerCore

extension PluginHost {
    /// The journal's totals (`JournalTotals`: juices made, failed orders, fruit used,
    /// stock, the journal's length, the store's size), or `nil` when the journal behind
    /// the host keeps none (a stream of another machine's events). A read view: like
    /// `journal`, it cannot be cast back to the store.
    package var totals: (any JournalTotalsReading)? { view.totals }
}

/// `JournalTotalsReading.journalTotals()`, and nothing else of the store behind it.
final class TotalsView: JournalTotalsReading {
    private let source: any JournalTotalsReading

    init(_ source: any JournalTotalsReading) {
        self.source = source
    }

    func journalTotals() throws(StoreError) -> JournalTotals { try source.journalTotals() }
}
