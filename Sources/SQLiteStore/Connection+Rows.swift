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
import JuiceMakerCore

/// The store's rows as domain values: stock, journal events.
extension Connection {
    func readStock() throws(StoreError) -> Stock {
        var stock = Stock()
        var seen = 0
        try forEachRow("SELECT fruit, quantity FROM stock") { row throws(StoreError) in
            if let fruit = Fruit(rawValue: row.text(0)) {
                stock[fruit] = try row.count(1, StoredColumn("stock", "quantity"), row: "fruit '\(fruit.id)'")
                seen += 1
            }
        }
        guard seen == Fruit.allCases.count else {
            throw StoreError(.stockRowsMissing(found: seen, expected: Fruit.allCases.count), path: path)
        }
        return stock
    }

    func lastSequence() throws(StoreError) -> Int64 {
        try integer("SELECT coalesce(max(sequence), 0) FROM journal") ?? 0
    }

    /// Where the journal ends: the next sequence and the last event's id (one
    /// lookup of the largest rowid).
    ///
    /// A recovered store continues after every sequence its damaged original was seen
    /// to reach (`numberedAfter`, from its `recoveries`), so no sequence is given twice.
    func journalPosition(numberedAfter floor: Int64) throws(StoreError) -> JournalPosition {
        var last: (sequence: Int64, id: String)?
        try forEachRow("SELECT sequence, id FROM journal ORDER BY sequence DESC LIMIT 1") { statement in
            last = (statement.int64(0), statement.text(1))
        }
        let reached = max(last?.sequence ?? 0, floor)
        guard reached < EventEnvelope.greatestSequence else { throw StoreError(.sequencesExhausted(last: reached), path: path) }
        return JournalPosition(nextSequence: max(reached, 0) + 1, lastEventID: last.flatMap { EventID($0.id) })
    }

    /// The sequence a recovered store's numbering continues after: the largest its
    /// original was seen to reach (0 for a store never recovered).
    func recoveredFloor() throws(StoreError) -> Int64 {
        var floor: Int64 = 0
        let column = StoredColumn("recoveries", "last_sequence")
        try forEachRow("SELECT rowid, last_sequence FROM recoveries") { row throws(StoreError) in
            floor = max(floor, try row.integer(1, column, row: "rowid \(row.int64(0))"))
        }
        return floor
    }

    /// `subscriber`'s cursor (0 for a subscriber without one).
    func cursor(of subscriber: String) throws(StoreError) -> Int64 {
        var cursor: Int64 = 0
        try forEachRow("SELECT sequence FROM cursors WHERE subscriber = ?1") {
            $0.bind(1, subscriber)
        } row: { row throws(StoreError) in
            cursor = try row.integer(0, StoredColumn("cursors", "sequence"), row: "subscriber '\(subscriber)'")
        }
        return cursor
    }

    /// Writes `change` inside the open transaction: the fruits whose quantity differs
    /// from `current`, then every event, which must continue the journal at `position`.
    func write(_ change: StoreChange, replacing current: Stock, at position: JournalPosition) throws(StoreError) {
        if let fruit = Fruit.allCases.first(where: { change.stock[$0] < 0 }) {
            throw StoreError(.negativeQuantity(fruit), path: path)
        }
        if let problem = position.problem(appending: change.events) {
            throw StoreError(problem, path: path)
        }
        if let last = change.events.last, last.sequence > EventEnvelope.greatestSequence {
            throw StoreError(.sequencesExhausted(last: position.nextSequence - 1), path: path)
        }
        for fruit in Fruit.allCases where change.stock[fruit] != current[fruit] {
            try run("UPDATE stock SET quantity = ?1 WHERE fruit = ?2") { statement in
                statement.bind(1, Int64(change.stock[fruit]))
                statement.bind(2, fruit.id)
            }
        }
        for envelope in change.events {
            let event = CloudEventFormat.encode(envelope)
            try run("INSERT INTO journal (sequence, id, time, type, change_id, event, digest) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)") {
                statement in
                statement.bind(1, envelope.sequence)
                statement.bind(2, envelope.id.description)
                statement.bind(3, Int64((envelope.time.timeIntervalSince1970 * 1000).rounded()))
                statement.bind(4, envelope.event.kind.cloudEventType)
                statement.bind(5, envelope.changeID.description)
                statement.bind(6, event)
                statement.bind(7, EventDigest.of(event))
            }
        }
    }

    func events(after sequence: Int64, limit: Int) throws(StoreError) -> [EventEnvelope] {
        try Self.events(from: entries(after: sequence, type: nil, limit: limit, newest: false), path: path)
    }

    /// `entries`' events; the first unreadable row throws (`journalRowNotAnEvent`).
    static func events(from entries: [JournalEntry], path: String) throws(StoreError) -> [EventEnvelope] {
        var events: [EventEnvelope] = []
        events.reserveCapacity(entries.count)
        for entry in entries {
            switch entry {
            case .event(let envelope): events.append(envelope)
            case .unreadable(let row):
                throw StoreError(.journalRowNotAnEvent(sequence: row.sequence, problem: row.reason), path: path)
            }
        }
        return events
    }

    /// Up to `limit` rows after `sequence`, of one CloudEvents `type` or all, from
    /// the oldest or the newest end; oldest first. A `type` reads through
    /// `journal_by_type`, so the other types' rows are never touched. A row whose
    /// `event` does not decode (damaged JSON, a type from a newer `juice`) comes back
    /// unreadable, with its sequence, its `id` column and why.
    func entries(after sequence: Int64, type: String?, limit: Int, newest: Bool) throws(StoreError) -> [JournalEntry] {
        let order = newest ? "DESC" : "ASC"
        let sql =
            type == nil
            ? "SELECT sequence, event, id FROM journal WHERE sequence > ?1 ORDER BY sequence \(order) LIMIT ?2"
            : "SELECT sequence, event, id FROM journal INDEXED BY journal_by_type WHERE type = ?3 AND sequence > ?1 ORDER BY sequence \(order) LIMIT ?2"
        var entries: [JournalEntry] = []
        try forEachRow(sql) { statement in
            statement.bind(1, sequence)
            statement.bind(2, Int64(limit))
            if let type { statement.bind(3, type) }
        } row: { row in
            entries.append(Self.entry(row))
        }
        if newest { entries.reverse() }
        return entries
    }

    /// Up to `limit` rows after `sequence`, oldest first, each event with its `event`
    /// text as committed: one pass reads both.
    func committedEntries(after sequence: Int64, limit: Int) throws(StoreError) -> [CommittedEntry] {
        var entries: [CommittedEntry] = []
        try forEachRow("SELECT sequence, event, id FROM journal WHERE sequence > ?1 ORDER BY sequence ASC LIMIT ?2") { statement in
            statement.bind(1, sequence)
            statement.bind(2, Int64(limit))
        } row: { row in
            let entry = Self.entry(row)
            guard case .event = entry else { return entries.append(CommittedEntry(entry, text: nil)) }
            entries.append(CommittedEntry(entry, text: row.text(1)))
        }
        return entries
    }

    /// The entry of a row of `SELECT sequence, event, id`: decoded from the column's
    /// bytes in place; the id is read only for a row that is not an event.
    private static func entry(_ row: Statement) -> JournalEntry {
        let sequence = row.int64(0)
        let decoded = row.withBytes(1) { bytes in Result { () throws(WireFormatError) in try CloudEventFormat.decode(utf8: bytes) } }
        switch decoded {
        case .success(let envelope) where envelope.sequence == sequence:
            return .event(envelope)
        case .success(let envelope):
            return .unreadable(
                UnreadableEvent(
                    sequence: sequence, eventID: EventID(row.text(2)), reason: "the event says sequence \(envelope.sequence), its row \(sequence)"))
        case .failure(let error):
            return .unreadable(UnreadableEvent(sequence: sequence, eventID: EventID(row.text(2)), reason: error.description))
        }
    }

    /// Changes whenever another connection, in any process, commits to the file.
    func dataVersion() throws(StoreError) -> Int64 {
        try integer("PRAGMA data_version") ?? 0
    }
}
