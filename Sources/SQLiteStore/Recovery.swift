import CSQLite
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

/// One recovery: reads `source` (through SQLite, as far as it reads) and `pages`
/// (the file's own bytes, where SQLite stops), writes `target` (a new store's file),
/// counts.
struct Recovery {
    /// SQLite's view of the damaged file, or nil when SQLite cannot even read its schema.
    let source: Connection?
    /// The file's pages, read without SQLite, or nil when its header is unreadable.
    let pages: PageFile?
    /// The file's size and its header's, when it is shorter than its header says.
    let cutShort: (size: Int64, expected: Int64)?
    /// Whether a -wal beside the file holds commits its pages may lack.
    let hasWriteAheadLog: Bool
    let target: Connection
    let sourcePath: String
    /// Each table's root page, as the file's schema page says.
    let roots: [String: Int]

    private(set) var events = 0
    private(set) var lastSequence: Int64 = 0
    private(set) var skippedEvents = 0
    private(set) var skippedSequences: [ClosedRange<Int64>] = []
    /// Each fruit's last `stockChanged` saved: sequence and quantity after it.
    private(set) var lastChange: [Fruit: (sequence: Int64, quantity: Int)] = [:]
    /// What the stock, cursors, dead letters and retry states gave (Recovery+Tables.swift).
    var stock: [RecoveryReport.StockEntry] = []
    var copied: [String: Int] = [:]
    var incomplete: [String] = []
    /// Whether SQLite met damage in the journal.
    private var damageMet = false
    /// Rows written since the target's transaction began.
    private var pending = 0

    init(source: Connection?, pages: PageFile?, cutShort: (size: Int64, expected: Int64)?, target: Connection, sourcePath: String) {
        self.source = source
        self.pages = pages
        self.cutShort = cutShort
        self.target = target
        self.sourcePath = sourcePath
        hasWriteAheadLog = StoreFile.hasWriteAheadLog(sourcePath)
        roots = pages?.rootPages() ?? [:]
    }

    static let columns = "sequence, id, time, type, change_id, event"
    static let scan = "SELECT \(columns) FROM journal ORDER BY sequence"
    static let insert = "INSERT OR IGNORE INTO journal (\(columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
    static let batch = 5_000
    static let listedRanges = 20

    mutating func run() throws(StoreError) {
        try target.execute("PRAGMA synchronous = NORMAL")
        try target.run("BEGIN IMMEDIATE")
        do throws(StoreError) {
            try journal()
            try restoreStock()
            for (table, columns) in [
                ("cursors", "subscriber, sequence"),
                ("dead_letters", "subscriber, sequence, event_id, attempts, last_error, recorded_at"),
                ("retry_states", "subscriber, sequence, attempts, next_attempt_at, last_error, disabled"),
            ] {
                try copy(table, columns: columns)
            }
            // Durable once closed: the closing checkpoint syncs the log, then the file.
            try target.run("COMMIT")
        } catch {
            target.rollback()
            throw error
        }
    }

    func report(path: String) -> RecoveryReport {
        RecoveryReport(
            path: path, events: events, lastSequence: lastSequence, skippedEvents: skippedEvents,
            skippedSequences: skippedSequences, stock: stock, cursors: copied["cursors"] ?? 0,
            deadLetters: copied["dead_letters"] ?? 0, retryStates: copied["retry_states"] ?? 0,
            incompleteTables: incomplete, cutShort: cutShort)
    }

    // MARK: The journal

    /// Whether an error is the source's damage (or a failure to read it) to step over,
    /// rather than a failure to stop for.
    func isSourceDamage(_ error: StoreError) -> Bool {
        error.path == sourcePath && (error.kind == .corrupt || error.kind == .io)
    }

    /// The journal: SQLite's scan in sequence order, as far as the b-tree leads; then,
    /// when that met damage, left gaps or the file is cut short, every table leaf page
    /// of the file read directly (a damaged root or interior page hides none of the
    /// leaves below it). Rows seen twice are saved once.
    private mutating func journal() throws(StoreError) {
        if let source {
            do throws(StoreError) {
                try source.forEachRow(Self.scan) { statement throws(StoreError) in
                    try save(Row(statement))
                }
            } catch  where isSourceDamage(error) {
                damageMet = true
            }
        }
        let bound = upperBound()
        let complete = !damageMet && cutShort == nil && source != nil && Int64(events) == max(bound, lastSequence)
        if !complete, let pages {
            try pages.forEachTableLeafRecord { rowid, values throws(StoreError) in
                if let row = Row(sequence: rowid, values) { try save(row) }
            }
        }
        lastSequence = max(bound, lastSequence)
        try countSkipped()
    }

    /// The largest sequence anything readable says the journal reached.
    private func upperBound() -> Int64 {
        guard let source else { return 0 }
        var bound: Int64 = 0
        var queries = ["SELECT max(sequence) FROM journal"]
        queries += EventKind.allCases.map { "SELECT max(sequence) FROM journal WHERE type = '\($0.cloudEventType)'" }
        queries += [
            "SELECT max(sequence) FROM cursors", "SELECT max(sequence) FROM dead_letters",
            "SELECT max(sequence) FROM retry_states", "SELECT max(folded) FROM report_state",
        ]
        for query in queries {
            if let value = try? source.integer(query) { bound = max(bound, value) }
        }
        return bound
    }

    /// One journal row as read.
    struct Row {
        let sequence: Int64
        let id: String
        let time: Int64
        let type: String
        let changeID: String
        let event: String

        init(_ statement: Statement) {
            sequence = statement.int64(0)
            id = statement.text(1)
            time = statement.int64(2)
            type = statement.text(3)
            changeID = statement.text(4)
            event = statement.text(5)
        }

        /// A journal row from a page: `sequence INTEGER PRIMARY KEY` is the rowid, so
        /// its column is stored as NULL; nil for a record of any other shape.
        init?(sequence: Int64, _ values: [PageValue]) {
            guard values.count == 6, values[0] == .null, let id = values[1].text, let time = values[2].integer,
                let type = values[3].text, let changeID = values[4].text, let event = values[5].text
            else { return nil }
            self.sequence = sequence
            self.id = id
            self.time = time
            self.type = type
            self.changeID = changeID
            self.event = event
        }
    }

    /// Writes `row` into the new journal when it is sound and not saved yet.
    private mutating func save(_ row: Row) throws(StoreError) {
        let judged = judge(row)
        if case .unsound = judged { return }
        try target.run(Self.insert) { statement in
            statement.bind(1, row.sequence)
            statement.bind(2, row.id)
            statement.bind(3, row.time)
            statement.bind(4, row.type)
            statement.bind(5, row.changeID)
            statement.bind(6, row.event)
        }
        guard sqlite3_changes(target.handle) == 1 else { return }
        if case let .event(envelope) = judged, case let .stockChanged(fruit, _, to, _) = envelope.event,
            row.sequence > lastChange[fruit]?.sequence ?? 0
        {
            lastChange[fruit] = (row.sequence, to)
        }
        events += 1
        lastSequence = max(lastSequence, row.sequence)
        try commitEvery()
    }

    /// The sequences from 1 to `lastSequence` the new journal lacks, as ranges.
    private mutating func countSkipped() throws(StoreError) {
        var expected: Int64 = 1
        try target.forEachRow("SELECT sequence FROM journal ORDER BY sequence") { statement in
            let sequence = statement.int64(0)
            if sequence > expected { skip(expected...(sequence - 1)) }
            expected = sequence + 1
        }
        if expected <= lastSequence { skip(expected...lastSequence) }
    }

    /// What a journal row read is worth.
    private enum Judgement {
        /// It decodes as the event its columns say (sequence, id, type).
        case event(EventEnvelope)
        /// Of a type this version does not know (a newer juice's), and still a JSON
        /// object with the id its column says: kept as it is.
        case unknownType
        /// Damaged content (or a row that contradicts itself): not kept.
        case unsound
    }

    private func judge(_ row: Row) -> Judgement {
        if let envelope = try? CloudEventFormat.decode(row.event) {
            let agrees =
                envelope.sequence == row.sequence && envelope.id.description == row.id
                && envelope.event.kind.cloudEventType == row.type
            return agrees ? .event(envelope) : .unsound
        }
        guard !EventKind.allCases.contains(where: { $0.cloudEventType == row.type }),
            CloudEventFormat.objectID(row.event) == row.id
        else { return .unsound }
        return .unknownType
    }

    private mutating func skip(_ range: ClosedRange<Int64>) {
        skippedEvents += range.count
        if skippedSequences.count < Self.listedRanges { skippedSequences.append(range) }
    }

    /// Commits the new store's transaction every `batch` rows, so a large journal
    /// is not held in one.
    private mutating func commitEvery() throws(StoreError) {
        pending += 1
        guard pending >= Self.batch else { return }
        try target.run("COMMIT")
        try target.run("BEGIN IMMEDIATE")
        pending = 0
    }
}
