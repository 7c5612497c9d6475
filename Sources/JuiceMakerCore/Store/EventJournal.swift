import Locking

/// An event a durable subscriber gave up on after its last attempt.
package struct DeadLetter: Sendable, Equatable {
    package let subscriber: String
    package let sequence: Int64
    package let eventID: EventID
    package let attempts: Int
    package let lastError: String
    package let recordedAt: Double

    package init(subscriber: String, sequence: Int64, eventID: EventID, attempts: Int, lastError: String, recordedAt: Double) {
        self.subscriber = subscriber
        self.sequence = sequence
        self.eventID = eventID
        self.attempts = attempts
        self.lastError = lastError
        self.recordedAt = recordedAt
    }
}

/// A journal row this version cannot turn into an event: its JSON is damaged, or it
/// is of a type a newer `juice` wrote. The rows around it still read.
public struct UnreadableEvent: Sendable, Equatable {
    public let sequence: Int64
    /// The row's event id, when that column still reads as one.
    public let eventID: EventID?
    /// Why it could not be read (English; it may quote the row: escape before printing).
    public let reason: String

    public init(sequence: Int64, eventID: EventID?, reason: String) {
        self.sequence = sequence
        self.eventID = eventID
        self.reason = reason
    }
}

/// One row of the journal: its event, or why it could not be read. Readers that must
/// not let one bad row hide the others (`juice events`, `watch`, durable delivery) read
/// entries; `events(after:…)` throws at the first unreadable row instead.
public enum JournalEntry: Sendable, Equatable {
    case event(EventEnvelope)
    case unreadable(UnreadableEvent)

    public var sequence: Int64 {
        switch self {
        case .event(let envelope): envelope.sequence
        case .unreadable(let row): row.sequence
        }
    }
}

/// An event as the journal committed it: decoded, with the CloudEvents structured JSON
/// the journal keeps (`CloudEventFormat.encode` of it), for a destination that sends
/// that JSON without encoding it again. `text` is `nil` when it was not read.
public struct CommittedEvent: Sendable, Equatable {
    public let envelope: EventEnvelope
    public let text: String?

    public init(_ envelope: EventEnvelope, text: String?) {
        self.envelope = envelope
        self.text = text
    }
}

/// A journal row with its committed text: `JournalEntry`, for readers that send the
/// JSON as committed (durable delivery to a pipelined destination).
public enum CommittedEntry: Sendable, Equatable {
    case event(CommittedEvent)
    case unreadable(UnreadableEvent)

    /// The entry without its text.
    public init(_ entry: JournalEntry, text: String?) {
        switch entry {
        case .event(let envelope): self = .event(CommittedEvent(envelope, text: text))
        case .unreadable(let row): self = .unreadable(row)
        }
    }

    public var sequence: Int64 {
        switch self {
        case .event(let event): event.envelope.sequence
        case .unreadable(let row): row.sequence
        }
    }
}

/// The read side of the journal: its events and entries after a sequence, and named
/// cursors over them.
///
/// Events are written by `StockStore.commit`; a journal only reads them. Sequences
/// start at 1 and have no gaps. What the host's delivery keeps beside the journal for
/// each durable subscriber is `DeliveryJournal`'s (package access).
public protocol EventJournal: AnyObject, Sendable {
    /// The sequence of the newest event, 0 when the journal is empty.
    func lastSequence() throws(StoreError) -> Int64

    /// Up to `limit` events with a sequence greater than `sequence`, oldest first.
    func events(after sequence: Int64, limit: Int) throws(StoreError) -> [EventEnvelope]

    /// The events after `sequence` of the given kinds (every kind when `nil`): the
    /// first `limit` of them, or with `newest` the last `limit`. Oldest first either
    /// way. A store with an index answers from it without reading the rest.
    func events(after sequence: Int64, kinds: Set<EventKind>?, limit: Int, newest: Bool) throws(StoreError) -> [EventEnvelope]

    /// Up to `limit` rows after `sequence`, oldest first, each an event or an
    /// unreadable row: one bad row never costs the page. A journal whose rows are
    /// always events (in memory, a stream) gets this from `events(after:limit:)`.
    func entries(after sequence: Int64, limit: Int) throws(StoreError) -> [JournalEntry]

    /// `events(after:kinds:limit:newest:)` as entries. An unreadable row is among
    /// the kinds when the store can tell its type (SQLite's `type` column), else
    /// always.
    func entries(after sequence: Int64, kinds: Set<EventKind>?, limit: Int, newest: Bool) throws(StoreError) -> [JournalEntry]

    /// `entries(after:limit:)`, each event with its CloudEvents structured JSON
    /// (`CloudEventFormat.encode`): what a destination that sends that JSON needs,
    /// without encoding again. A store that keeps the text answers with it as
    /// committed, read in the same pass.
    func committedEntries(after sequence: Int64, limit: Int) throws(StoreError) -> [CommittedEntry]

    /// Waits until an event after `sequence` exists (committed by any process) or
    /// `timeout` passes, without spinning the CPU. Returns whether one exists.
    func waitForEvents(after sequence: Int64, timeout: Duration) throws(StoreError) -> Bool

    /// The sequence a named subscriber has handled up to; 0 if it never has.
    func cursor(named name: String) throws(StoreError) -> Int64

    /// Moves a named cursor. Cursors only move forward; a smaller value is ignored.
    func setCursor(named name: String, to sequence: Int64) throws(StoreError)

    /// Every named cursor.
    func cursors() throws(StoreError) -> [String: Int64]
}

/// The journal as the host's delivery keeps it: the read side, and the bookkeeping of
/// each durable subscriber beside it (its last delivery, dead letters, retry state,
/// lease, and the events a recovery found lost). The stores implement it; a plugin sees
/// the read side only (`PluginHost.journal`).
package protocol DeliveryJournal: EventJournal {
    /// `setCursor(named:to:)`, recording in the same write that the subscriber
    /// delivered an event at `deliveredAt` (Unix seconds): its last success, which
    /// `lastDelivery(for:)` answers. A journal that keeps no such time only moves the cursor.
    func setCursor(named name: String, to sequence: Int64, deliveredAt: Double) throws(StoreError)

    /// When `subscriber` last delivered an event (Unix seconds); `nil` when it never
    /// has, or the journal keeps no such time.
    func lastDelivery(for subscriber: String) throws(StoreError) -> Double?

    /// Records that `letter.subscriber` gave up on an event.
    func recordDeadLetter(_ letter: DeadLetter) throws(StoreError)

    /// Dead letters, oldest first; all subscribers' when `subscriber` is nil.
    func deadLetters(for subscriber: String?) throws(StoreError) -> [DeadLetter]

    /// Forgets a subscriber's dead letters (after redelivering them).
    func removeDeadLetters(for subscriber: String, sequences: [Int64]) throws(StoreError)

    /// Where a durable subscriber stands with its oldest undelivered event (attempts
    /// made, when the next is due, whether the destination was disabled); `nil` when
    /// its last attempt succeeded or it never failed. Shared by every process.
    func retryState(for subscriber: String) throws(StoreError) -> DeliveryRetryState?

    /// Replaces a durable subscriber's retry state; `nil` clears it.
    func setRetryState(_ state: DeliveryRetryState?, for subscriber: String) throws(StoreError)

    /// Takes the right to deliver `subscriber`'s events from this journal, without
    /// waiting: `nil` when another runner holds it (in this process or another one).
    /// At most one runner per subscriber and journal holds it at a time; it is held
    /// until `release()`, the lease's end of life, or the end of the process (so a
    /// crash frees it).
    func takeDeliveryLease(for subscriber: String) throws(StoreError) -> DeliveryLease?

    /// The events a recovery of the store found lost for `subscriber` (every
    /// subscriber's with nil), not yet acknowledged, by subscriber and sequence.
    func lostEvents(for subscriber: String?) throws(StoreError) -> [LostEvents]

    /// Forgets the lost events of `subscriber` a person has taken note of; returns how
    /// many ranges there were.
    @discardableResult
    func acknowledgeLostEvents(of subscriber: String) throws(StoreError) -> Int
}

/// The right to deliver one durable subscriber's events (see
/// `DeliveryJournal.takeDeliveryLease(for:)`). Released once: by `release()` or when the
/// last reference goes.
package final class DeliveryLease: Sendable {
    private let onRelease: Locked<(@Sendable () -> Void)?>

    /// A lease that runs `onRelease` once when it is given up.
    package init(onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = Locked(onRelease)
    }

    /// Gives the lease up. Later calls do nothing.
    package func release() {
        onRelease.withLock { $0.take() }?()
    }

    deinit { release() }
}

extension DeliveryJournal {
    /// Moves the cursor only: for journals that keep no delivery times.
    package func setCursor(named name: String, to sequence: Int64, deliveredAt: Double) throws(StoreError) {
        try setCursor(named: name, to: sequence)
    }

    /// None kept: for journals that keep no delivery times.
    package func lastDelivery(for subscriber: String) throws(StoreError) -> Double? { nil }

    /// None: for journals that are never recovered from damage.
    package func lostEvents(for subscriber: String?) throws(StoreError) -> [LostEvents] { [] }

    /// None to forget: for journals that are never recovered from damage.
    @discardableResult
    package func acknowledgeLostEvents(of subscriber: String) throws(StoreError) -> Int { 0 }
}

extension EventJournal {
    /// The events as entries: for journals that hold only events.
    public func entries(after sequence: Int64, limit: Int) throws(StoreError) -> [JournalEntry] {
        try events(after: sequence, limit: limit).map(JournalEntry.event)
    }

    /// Pages through `entries(after:limit:)`: for journals without an index.
    public func entries(after sequence: Int64, kinds: Set<EventKind>?, limit: Int, newest: Bool) throws(StoreError) -> [JournalEntry] {
        try selectPaging(after: sequence, limit: limit, newest: newest, sequence: { $0.sequence }) { (after, page) throws(StoreError) in
            try entries(after: after, limit: page)
        } keeps: { entry in
            guard case .event(let envelope) = entry else { return true }
            return kinds?.contains(envelope.event.kind) ?? true
        }
    }

    /// The events encoded: for journals that do not keep the text.
    public func committedEntries(after sequence: Int64, limit: Int) throws(StoreError) -> [CommittedEntry] {
        try entries(after: sequence, limit: limit).map { entry in
            guard case .event(let envelope) = entry else { return CommittedEntry(entry, text: nil) }
            return CommittedEntry(entry, text: CloudEventFormat.encode(envelope))
        }
    }

    /// Pages through `events(after:limit:)`: for journals without an index.
    public func events(after sequence: Int64, kinds: Set<EventKind>?, limit: Int, newest: Bool) throws(StoreError) -> [EventEnvelope] {
        try selectPaging(after: sequence, limit: limit, newest: newest, sequence: { $0.sequence }) { (after, page) throws(StoreError) in
            try events(after: after, limit: page)
        } keeps: {
            kinds?.contains($0.event.kind) ?? true
        }
    }
}

/// Reads pages of `read(after:limit:)` from `sequence` to the end, keeping the rows
/// `keeps` takes: the first `limit` of them, or with `newest` the last `limit`.
private func selectPaging<Row>(
    after sequence: Int64, limit: Int, newest: Bool, sequence sequenceOf: (Row) -> Int64,
    read: (Int64, Int) throws(StoreError) -> [Row], keeps: (Row) -> Bool
) throws(StoreError) -> [Row] {
    guard limit > 0 else { return [] }
    var selected: [Row] = []
    var after = sequence
    let page = 1_000
    while true {
        let rows = try read(after, page)
        selected += rows.filter(keeps)
        if !newest, selected.count >= limit { return Array(selected.prefix(limit)) }
        if newest, selected.count > limit { selected.removeFirst(selected.count - limit) }
        guard let last = rows.last, rows.count == page else { return selected }
        after = sequenceOf(last)
    }
}
