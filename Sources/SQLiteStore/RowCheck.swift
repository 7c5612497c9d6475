import CSQLite
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore

/// What recovery checks of every row before it writes it into the new store, the same
/// whichever reader found the row (SQLite's or the page reader's): the row is values
/// (`PageValue`, text strictly UTF-8), and each table's rule says what its columns
/// must hold. A row that fails is counted as unreadable and never written: one wrong
/// row costs itself, never the run, and the new store holds only rows this version
/// reads back.
enum RowCheck {
    /// One column's rule.
    enum Column {
        /// An integer in `range`.
        case integer(ClosedRange<Int64>)
        /// A finite number (SQLite stores a whole REAL as an integer on its page).
        case real
        /// Text; `nonEmpty` refuses "".
        case text(nonEmpty: Bool)
        /// An event id (a UUID in text form).
        case eventID
        /// An integer, or NULL (a column added later: older rows have none).
        case optionalInteger

        func admits(_ value: PageValue) -> Bool {
            switch (self, value) {
            case let (.integer(range), .integer(number)): range.contains(number)
            case let (.real, .real(number)): number.isFinite
            case (.real, .integer): true
            case let (.text(nonEmpty), .text(text)): !nonEmpty || !text.isEmpty
            case let (.eventID, .text(text)): EventID(text) != nil
            case (.optionalInteger, .integer), (.optionalInteger, .null): true
            default: false
            }
        }
    }

    static let sequences = Column.integer(1...EventEnvelope.greatestSequence)
    static let counts = Column.integer(0...Int64(Int32.max))

    /// A table recovery copies: its columns, in the order recovery reads and writes
    /// them, their rules, and which column (if any) names a sequence the old journal
    /// reached.
    struct Table {
        let columns: String
        let rules: [Column]
        var reaches: Int? = nil
    }

    static let tables: [String: Table] = [
        "journal": Table(
            columns: "sequence, id, time, type, change_id, event, digest",
            rules: [
                sequences, .eventID, .integer(Int64.min...Int64.max), .text(nonEmpty: true), .eventID, .text(nonEmpty: true),
                .optionalInteger,
            ],
            reaches: 0),
        "stock": Table(columns: "fruit, quantity", rules: [.text(nonEmpty: true), .integer(0...Int64(Stock.maximumQuantity))]),
        "cursors": Table(
            columns: "subscriber, sequence", rules: [.text(nonEmpty: true), .integer(0...EventEnvelope.greatestSequence)], reaches: 1),
        "dead_letters": Table(
            columns: "subscriber, sequence, event_id, attempts, last_error, recorded_at",
            rules: [.text(nonEmpty: true), sequences, .eventID, counts, .text(nonEmpty: false), .real], reaches: 1),
        "retry_states": Table(
            columns: "subscriber, sequence, attempts, next_attempt_at, last_error, disabled",
            rules: [.text(nonEmpty: true), sequences, counts, .real, .text(nonEmpty: false), .integer(0...1)], reaches: 1),
        "recoveries": Table(
            columns: "recovered_at, last_sequence", rules: [.real, .integer(0...EventEnvelope.greatestSequence)], reaches: 1),
        "lost_events": Table(
            columns: "subscriber, first, last, recovered_at", rules: [.text(nonEmpty: true), sequences, sequences, .real], reaches: 2),
        // The sums of deleted events: an hour, one of the report's kinds, its item and fruit, non-negative sums.
        "journal_rollups": Table(
            columns: "hour, kind, item, fruit, events, amount",
            rules: [
                .integer(Int64.min / 3_600_000...Int64.max / 3_600_000), .integer(1...5), .text(nonEmpty: true), .text(nonEmpty: false),
                .integer(0...Int64.max), .integer(0...Int64.max),
            ]),
        // A subscriber's last rewind: from and to cursors it reached.
        "rewinds": Table(
            columns: "subscriber, from_sequence, to_sequence, rewound_at",
            rules: [.text(nonEmpty: true), .integer(0...EventEnvelope.greatestSequence), .integer(0...EventEnvelope.greatestSequence), .real],
            reaches: 1),
        // Where history starts: the last sequence compaction deleted was reached.
        "compaction_state": Table(
            columns: "id, through, events, compacted_at",
            rules: [.integer(1...1), .integer(0...EventEnvelope.greatestSequence), .integer(0...Int64.max), .real], reaches: 1),
    ]

    /// Whether `values` is a row of `table` by its columns' rules.
    static func admits(_ values: [PageValue], to table: String) -> Bool {
        guard let rules = tables[table]?.rules, values.count == rules.count else { return false }
        return zip(rules, values).allSatisfy { $0.admits($1) }
    }

    /// The event a journal row holds, when the row is sound: its columns pass their
    /// rules, its `event` decodes as an event of this version (strictly: a text that
    /// is not UTF-8 never got here), possible on a machine, written exactly as the
    /// store writes it, agreeing with every other column (sequence, id, time, type,
    /// change id), and with its digest where it has one. Otherwise why not.
    static func journalEvent(_ values: [PageValue]) -> Result<EventEnvelope, RowProblem> {
        guard admits(values, to: "journal"), case let .integer(sequence) = values[0], case let .text(id) = values[1],
            case let .integer(time) = values[2], case let .text(type) = values[3], case let .text(changeID) = values[4],
            case let .text(event) = values[5]
        else { return .failure(.columns) }
        if case let .integer(digest) = values[6], digest != EventDigest.of(event) { return .failure(.digest) }
        let envelope: EventEnvelope
        do throws(WireFormatError) {
            envelope = try CloudEventFormat.decode(event)
        } catch {
            return .failure(.event(error.description))
        }
        if let impossible = envelope.event.impossibility { return .failure(.event(impossible)) }
        guard CloudEventFormat.encode(envelope) == event else { return .failure(.event("not as the store writes it")) }
        guard envelope.sequence == sequence, envelope.id.description == id, envelope.event.kind.cloudEventType == type,
            envelope.changeID.description == changeID, Int64((envelope.time.timeIntervalSince1970 * 1000).rounded()) == time
        else { return .failure(.disagreement) }
        return .success(envelope)
    }

    /// A journal record read from a page as the journal's columns, or nil for a record
    /// of another shape: `sequence INTEGER PRIMARY KEY` is the rowid, so its column is
    /// stored as NULL, and a row written before `digest` was added has six values
    /// (SQLite reads the missing last one as NULL).
    static func journalRow(rowid: Int64, _ values: [PageValue]) -> [PageValue]? {
        guard values.count == 6 || values.count == 7, values[0] == .null else { return nil }
        return [.integer(rowid)] + values.dropFirst() + (values.count == 6 ? [.null] : [])
    }

    /// Why a row was not saved.
    enum RowProblem: Error, Equatable {
        /// A column of the wrong type, out of its range, or not UTF-8.
        case columns
        /// The event does not decode, or cannot have happened.
        case event(String)
        /// The row's columns and its event say different things.
        case disagreement
        /// The event is not the text its digest was taken of.
        case digest
    }
}

extension Statement {
    /// Column `column` as a value, text only when it is valid UTF-8 (nil otherwise:
    /// damage, never replaced).
    func value(_ column: Int32) -> PageValue? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_TEXT: return withBytes(column) { String(validating: $0, as: UTF8.self) }.map(PageValue.text)
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    /// Columns 0..<`count` as values, or nil when a text among them is not UTF-8.
    func values(_ count: Int) -> [PageValue]? {
        var values: [PageValue] = []
        values.reserveCapacity(count)
        for column in 0..<Int32(count) {
            guard let value = value(column) else { return nil }
            values.append(value)
        }
        return values
    }
}
