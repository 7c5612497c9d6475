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
import JuicePrimitives

/// One recovery: reads `source` (through SQLite, as far as it reads) and `pages`
/// (the file's own bytes, where SQLite stops), writes `target` (a new store's file),
/// counts. Every row goes through `RowCheck` before it is written, whichever reader
/// found it; one that fails is counted, never written, and never stops the run.
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
    /// Bookkeeping tables whose b-tree holds another tree's pages (`PageFile.treesHoldingForeignPages`).
    let foreignTrees: Set<String>

    private(set) var events = 0
    /// The largest sequence anything sound in the old file names: a journal row, a
    /// cursor, a dead letter, a retry state, SQLite's own view of the journal's end.
    private(set) var lastSequence: Int64 = 0
    private(set) var skippedEvents = 0
    /// Every range of sequences from 1 to `lastSequence` the new journal lacks.
    private(set) var skippedSequences: [ClosedRange<Int64>] = []
    /// Each fruit's last `stockChanged` saved: sequence and quantity after it.
    private(set) var lastChange: [Fruit: (sequence: Int64, quantity: Int)] = [:]
    /// What the stock, cursors, dead letters and retry states gave (Recovery+Tables.swift).
    var stock: [RecoveryReport.StockEntry] = []
    var copied: [String: Int] = [:]
    var incomplete: [String] = []
    /// Rows read but not sound, by table (each distinct row once).
    var unsound: [String: Set<String>] = [:]
    /// What each durable subscriber had not been sent and is gone (Recovery+Tables.swift).
    var lost: [LostEvents] = []
    /// Whether SQLite met damage in the journal.
    private var damageMet = false
    /// The sequences of journal rows read but not sound (some may be saved from a
    /// sound copy of the row elsewhere).
    private var unsoundSequences: Set<Int64> = []
    /// Rows written since the target's transaction began.
    private var pending = 0
    let recoveredAt = Date().timeIntervalSince1970

    init(source: Connection?, pages: PageFile?, cutShort: (size: Int64, expected: Int64)?, target: Connection, sourcePath: String) {
        self.source = source
        self.pages = pages
        self.cutShort = cutShort
        self.target = target
        self.sourcePath = sourcePath
        hasWriteAheadLog = StoreFile.hasWriteAheadLog(sourcePath)
        let roots = pages?.rootPages() ?? [:]
        self.roots = roots
        // The delivery bookkeeping's trees are small, and a page of another tree copied
        // over one of them reads, through SQLite, as rows that fit (a dead letter's
        // subscriber and sequence as a cursor): such a tree is not read at all.
        let bookkeeping = ["stock", "cursors", "dead_letters", "retry_states"]
        foreignTrees =
            hasWriteAheadLog
            ? []
            : pages?.treesHoldingForeignPages(
                roots.filter { bookkeeping.contains($0.key) }, withoutRowid: ["stock", "cursors", "retry_states"],
                columns: ["stock": 2, "cursors": 2]) ?? []
    }

    static let columns = RowCheck.tables["journal"]?.columns ?? ""
    static let scan = "SELECT \(columns) FROM journal ORDER BY sequence"
    static let insert = "INSERT OR IGNORE INTO journal (\(columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
    static let batch = 5_000
    static let listedRanges = 20

    mutating func run() throws(StoreError) {
        try target.execute("PRAGMA synchronous = NORMAL")
        try target.run("BEGIN IMMEDIATE")
        do throws(StoreError) {
            try journal()
            try restoreStock()
            // Cursors first: a dead letter or retry state without its event names a
            // sequence the journal was seen to reach, which the cursors help say.
            for table in ["cursors", "dead_letters", "retry_states", "recoveries", "lost_events", "journal_rollups", "compaction_state", "rewinds"] {
                try copy(table)
            }
            try countSkipped()
            try recordLosses()
            // Durable once closed: the closing checkpoint syncs the log, then the file.
            try target.run("COMMIT")
        } catch {
            target.rollback()
            throw error
        }
    }

    func report(path: String) -> RecoveryReport {
        var report = RecoveryReport(
            path: path, events: events, lastSequence: lastSequence, skippedEvents: skippedEvents,
            skippedSequences: Array(skippedSequences.prefix(Self.listedRanges)), stock: stock, cursors: copied["cursors"] ?? 0,
            deadLetters: copied["dead_letters"] ?? 0, retryStates: copied["retry_states"] ?? 0,
            incompleteTables: incomplete, cutShort: cutShort, unreadableRows: unsound.mapValues(\.count).filter { $0.value > 0 },
            lostEvents: lost, headerCorrection: pages?.headerCorrection)
        report.pagesRead = pages?.pagesRead ?? 0
        return report
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
            // A store of schema 5 or older has no digest column.
            let hasDigest = (try? source.integer("SELECT count(*) FROM pragma_table_info('journal') WHERE name = 'digest'")) == 1
            let scan = hasDigest ? Self.scan : Self.scan.replacingText(", digest FROM", with: ", NULL FROM")
            do throws(StoreError) {
                try source.forEachRow(scan) { statement throws(StoreError) in
                    try save(statement.values(7), sequence: statement.int64(0))
                }
            } catch  where isSourceDamage(error) {
                damageMet = true
            }
        }
        let bound = upperBound()
        // A compacted journal starts after the events compaction deleted.
        let deleted = (try? source?.integer("SELECT through FROM compaction_state WHERE id = 1")).flatMap { $0 } ?? 0
        let complete =
            !damageMet && cutShort == nil && source != nil && unsoundSequences.isEmpty
            && Int64(events) == max(bound, lastSequence) - max(0, deleted)
        if !complete, let pages {
            try pages.forEachTableLeafRecord { rowid, values, whole throws(StoreError) in
                guard var row = RowCheck.journalRow(rowid: rowid, values) else { return }
                // A row the file's end cuts reads with zeros for its last bytes: its digest,
                // the last column, is not what was written, so the row is checked without it
                // (its event must still decode, be written exactly as the store writes it,
                // and agree with every other column).
                if !whole { row[6] = .null }
                try save(row, sequence: rowid)
            }
        }
        lastSequence = max(bound, lastSequence)
        // A row read damaged whose sequence no sound row filled.
        for sequence in unsoundSequences.sorted() {
            let saved = try target.integer("SELECT count(*) FROM journal WHERE sequence = ?1") { $0.bind(1, sequence) } ?? 0
            if saved == 0 { unsound["journal", default: []].insert("\(sequence)") }
        }
    }

    /// The largest sequence SQLite's view of the journal names (the end of its
    /// b-tree, of each kind's index, the report's fold), within the sequences a
    /// journal gives.
    private func upperBound() -> Int64 {
        guard let source else { return 0 }
        var bound: Int64 = 0
        var queries = ["SELECT max(sequence) FROM journal"]
        queries += EventKind.allCases.map { "SELECT max(sequence) FROM journal WHERE type = '\($0.cloudEventType)'" }
        queries += ["SELECT max(folded) FROM report_state"]
        for query in queries {
            var value: PageValue?
            try? source.forEachRow(query) { value = $0.value(0) }
            if case let .integer(found)? = value, (1...EventEnvelope.greatestSequence).contains(found) { bound = max(bound, found) }
        }
        return bound
    }

    /// Writes the journal row at `sequence` into the new journal when it is sound and
    /// not saved yet; `values` is nil for a row with a text that is not UTF-8.
    private mutating func save(_ values: [PageValue]?, sequence: Int64) throws(StoreError) {
        guard let values, case let .success(envelope) = RowCheck.journalEvent(values) else {
            unsoundSequences.insert(sequence)
            return
        }
        try target.run(Self.insert) { statement in
            for (index, value) in values.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
        }
        guard sqlite3_changes(target.handle) == 1 else { return }
        if case let .stockChanged(fruit, _, to, _) = envelope.event, envelope.sequence > lastChange[fruit]?.sequence ?? 0 {
            lastChange[fruit] = (envelope.sequence, to)
        }
        events += 1
        lastSequence = max(lastSequence, envelope.sequence)
        try commitEvery()
    }

    /// The sequences from where history starts (after the events compaction deleted,
    /// as the copied `compaction_state` says) to `lastSequence` the new journal lacks, as ranges.
    private mutating func countSkipped() throws(StoreError) {
        var expected: Int64 = try target.compactionState().historyStart
        try target.forEachRow("SELECT sequence FROM journal ORDER BY sequence") { statement in
            let sequence = statement.int64(0)
            if sequence > expected { skip(expected...(sequence - 1)) }
            expected = sequence + 1
        }
        if expected <= lastSequence { skip(expected...lastSequence) }
    }

    private mutating func skip(_ range: ClosedRange<Int64>) {
        // Sequences are at most `EventEnvelope.greatestSequence`: no count traps.
        skippedEvents += Int(range.upperBound - range.lowerBound + 1)
        skippedSequences.append(range)
    }

    /// Commits the new store's transaction every `batch` rows, so a large journal
    /// is not held in one.
    mutating func commitEvery() throws(StoreError) {
        pending += 1
        guard pending >= Self.batch else { return }
        try target.run("COMMIT")
        try target.run("BEGIN IMMEDIATE")
        pending = 0
    }

    /// Raises `lastSequence` to a sequence a sound row of another table names.
    mutating func reached(_ sequence: Int64) {
        lastSequence = max(lastSequence, sequence)
    }
}
