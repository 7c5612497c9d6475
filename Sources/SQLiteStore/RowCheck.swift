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
        /// A time, seconds since 1970, within `RowCheck.times` (SQLite stores a whole
        /// REAL as an integer on its page).
        case time
        /// Text; `nonEmpty` refuses "".
        case text(nonEmpty: Bool)
        /// An event id (a UUID in text form).
        case eventID
        /// An integer, or NULL (a column added later: older rows have none).
        case optionalInteger
        /// A column no rule names (one added without its rule): nothing is admitted.
        case unknown

        func admits(_ value: PageValue) -> Bool {
            switch (self, value) {
            case let (.integer(range), .integer(number)): range.contains(number)
            case let (.time, .real(seconds)): RowCheck.times.contains(seconds)
            case let (.time, .integer(seconds)): RowCheck.times.contains(Double(seconds))
            case let (.text(nonEmpty), .text(text)): !nonEmpty || !text.isEmpty
            case let (.eventID, .text(text)): EventID(text) != nil
            case (.optionalInteger, .integer), (.optionalInteger, .null): true
            default: false
            }
        }
    }

    static let sequences = Column.integer(1...EventEnvelope.greatestSequence)
    static let counts = Column.integer(0...Int64(Int32.max))
    /// A cursor's, or a projection's, place: before the first event (0) up to the last.
    static let positions = Column.integer(0...EventEnvelope.greatestSequence)
    /// The sums of events an hour, or the totals, hold: never below 0.
    static let sums = Column.integer(0...Int64.max)

    /// The times the store writes, in seconds since 1970: from 1970 (the clock's
    /// zero, which tests and hand-made rows use) to the end of 9999, the last moment
    /// a time is shown in (four-digit years). NaN and the infinities are outside.
    static let times: ClosedRange<Double> = 0...253_402_300_799.999

    /// The rule of `column` of `table`, or nil for a column no table here lists.
    static func rule(of table: String, _ column: String) -> Column? {
        rulesByName[table]?[column]
    }

    /// Each table's rules by column name, made once.
    private static let rulesByName: [String: [String: Column]] = tables.mapValues { table in
        Dictionary(zip(table.names, table.rules)) { first, _ in first }
    }

    /// A table recovery copies: its columns, in the order recovery reads and writes
    /// them, their rules, and which column (if any) names a sequence the old journal
    /// reached.
    struct Table {
        let columns: String
        let rules: [Column]
        var reaches: Int? = nil
        /// How many leading columns name a row (its key), for a damage report.
        var key = 1

        /// The columns' names, in order.
        var names: [String] { columns.split(separator: ",").map { String($0.drop(while: { $0 == " " })) } }
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
            rules: [.text(nonEmpty: true), sequences, .eventID, counts, .text(nonEmpty: false), .time], reaches: 1, key: 2),
        "retry_states": Table(
            columns: "subscriber, sequence, attempts, next_attempt_at, last_error, disabled",
            rules: [.text(nonEmpty: true), sequences, counts, .time, .text(nonEmpty: false), .integer(0...1)], reaches: 1),
        "recoveries": Table(
            columns: "recovered_at, last_sequence", rules: [.time, positions], reaches: 1, key: 2),
        "lost_events": Table(
            columns: "subscriber, first, last, recovered_at", rules: [.text(nonEmpty: true), sequences, sequences, .time], reaches: 2,
            key: 2),
        // The sums of deleted events: an hour, one of the report's kinds, its item and fruit, non-negative sums.
        "journal_rollups": hourlySums,
        // A subscriber's last rewind: from and to cursors it reached.
        "rewinds": Table(
            columns: "subscriber, from_sequence, to_sequence, rewound_at",
            rules: [.text(nonEmpty: true), positions, positions, .time],
            reaches: 1),
        // Where history starts: the last sequence compaction deleted was reached.
        "compaction_state": Table(
            columns: "id, through, events, compacted_at",
            rules: [.integer(1...1), positions, sums, .time], reaches: 1),
        // When each durable subscriber last delivered an event.
        "deliveries": Table(columns: "subscriber, delivered_at", rules: [.text(nonEmpty: true), .time]),
        // The report's projection (rebuilt from the journal and the rollups, never recovered).
        "report_hourly": hourlySums,
        "report_state": projectionState,
        "journal_totals": Table(
            columns: "kind, item, events, amount", rules: [.integer(1...5), .text(nonEmpty: true), sums, sums], key: 2),
        "journal_totals_state": projectionState,
    ]

    /// A table of the sums of an hour's events: an hour, one of the report's kinds, its
    /// item and fruit, non-negative sums.
    private static let hourlySums = Table(
        columns: "hour, kind, item, fruit, events, amount",
        rules: [
            .integer(Int64.min / 3_600_000...Int64.max / 3_600_000), .integer(1...5), .text(nonEmpty: true), .text(nonEmpty: false),
            sums, sums,
        ],
        key: 4)

    /// Where a projection has folded the journal to, and the version of its fold.
    private static let projectionState = Table(
        columns: "id, folded, version", rules: [.integer(1...1), positions, .integer(Int64.min...Int64.max)])

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
