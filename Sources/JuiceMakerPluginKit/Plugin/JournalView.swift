import JuiceMakerCore

/// The journal as a plugin sees it (`PluginHost.journal`): every `EventJournal` method,
/// and nothing else; the host's delivery reads the same view as a `DeliveryJournal`
/// (`PluginHost.deliveryJournal`).
///
/// The stores implement the journal and the writer (`StockStore`) on one object, so
/// handing a plugin the store itself would let it cast (`as? StockStore`) and commit
/// around the maker. This view forwards the journal's methods only.
final class JournalView: DeliveryJournal {
    private let journal: any DeliveryJournal

    /// Wraps `journal`, unless it already is a view.
    init(_ journal: any DeliveryJournal) {
        self.journal = (journal as? JournalView)?.journal ?? journal
    }

    /// The journal behind, when its events are acknowledged one by one (it offers
    /// nothing more than that: no way to the store's writing side).
    var acknowledging: (any EventAcknowledgingJournal)? { journal as? any EventAcknowledgingJournal }

    func lastSequence() throws(StoreError) -> Int64 { try journal.lastSequence() }

    func events(after sequence: Int64, limit: Int) throws(StoreError) -> [EventEnvelope] {
        try journal.events(after: sequence, limit: limit)
    }

    func committedEntries(after sequence: Int64, limit: Int) throws(StoreError) -> [CommittedEntry] {
        try journal.committedEntries(after: sequence, limit: limit)
    }

    func events(after sequence: Int64, kinds: Set<EventKind>?, limit: Int, newest: Bool) throws(StoreError) -> [EventEnvelope] {
        try journal.events(after: sequence, kinds: kinds, limit: limit, newest: newest)
    }

    func entries(after sequence: Int64, limit: Int) throws(StoreError) -> [JournalEntry] {
        try journal.entries(after: sequence, limit: limit)
    }

    func entries(after sequence: Int64, kinds: Set<EventKind>?, limit: Int, newest: Bool) throws(StoreError) -> [JournalEntry] {
        try journal.entries(after: sequence, kinds: kinds, limit: limit, newest: newest)
    }

    func waitForEvents(after sequence: Int64, timeout: Duration) throws(StoreError) -> Bool {
        try journal.waitForEvents(after: sequence, timeout: timeout)
    }

    func cursor(named name: String) throws(StoreError) -> Int64 { try journal.cursor(named: name) }

    func setCursor(named name: String, to sequence: Int64) throws(StoreError) {
        try journal.setCursor(named: name, to: sequence)
    }

    func cursors() throws(StoreError) -> [String: Int64] { try journal.cursors() }

    func setCursor(named name: String, to sequence: Int64, deliveredAt: Double) throws(StoreError) {
        try journal.setCursor(named: name, to: sequence, deliveredAt: deliveredAt)
    }

    func lastDelivery(for subscriber: String) throws(StoreError) -> Double? { try journal.lastDelivery(for: subscriber) }

    /// The store's totals behind a view of their own, or `nil` when it keeps none.
    var totals: (any JournalTotalsReading)? { (journal as? any JournalTotalsReading).map(TotalsView.init) }

    func recordDeadLetter(_ letter: DeadLetter) throws(StoreError) { try journal.recordDeadLetter(letter) }

    func deadLetters(for subscriber: String?) throws(StoreError) -> [DeadLetter] {
        try journal.deadLetters(for: subscriber)
    }

    func removeDeadLetters(for subscriber: String, sequences: [Int64]) throws(StoreError) {
        try journal.removeDeadLetters(for: subscriber, sequences: sequences)
    }

    func retryState(for subscriber: String) throws(StoreError) -> DeliveryRetryState? {
        try journal.retryState(for: subscriber)
    }

    func setRetryState(_ state: DeliveryRetryState?, for subscriber: String) throws(StoreError) {
        try journal.setRetryState(state, for: subscriber)
    }

    func takeDeliveryLease(for subscriber: String) throws(StoreError) -> DeliveryLease? {
        try journal.takeDeliveryLease(for: subscriber)
    }
}
