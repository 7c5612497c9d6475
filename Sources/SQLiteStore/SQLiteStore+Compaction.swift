#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import JuicePrimitives
import Locking

/// What one `compact` did, and what stopped it where it stopped.
public struct CompactionResult: Sendable, Equatable {
    /// Why compaction stopped before the next event.
    public enum Limit: Sendable, Equatable {
        /// The next event is not older than the retention.
        case retention
        /// The next event is the newest: it is always kept, so numbering goes on after it.
        case newestEvent
        /// A durable subscriber's cursor has not passed the next event.
        case subscriber(String, cursor: Int64)
        /// A dead letter names the next event or one before it.
        case deadLetter(String, sequence: Int64)
        /// A retry state names the next event or one before it.
        case retry(String, sequence: Int64)
        /// There is no event after where history starts.
        case empty
    }

    /// Events deleted by this run (folded into the rollups first).
    public var deletedEvents: Int
    /// The first sequence the journal holds now (history starts here); 1 for a store never compacted.
    public var historyStart: Int64
    /// What stopped this run.
    public var limit: Limit
    /// Write transactions this run took for the events, each at most `batchSize` events.
    public var batches: Int
    /// The longest of them, in milliseconds.
    public var longestBatchMilliseconds: Double
    /// Pages given back to the file system (incremental vacuum).
    public var freedPages: Int
    /// Whether the file gives pages back (`auto_vacuum = INCREMENTAL`); any other file
    /// reuses its free pages for new events instead, so it stops growing but does not shrink.
    public var givesSpaceBack: Bool
}

/// Where the journal's history starts after compaction, and when it last ran.
public struct CompactionState: Sendable, Equatable {
    /// The last sequence compaction deleted (0: never).
    public var through: Int64
    /// Every event compaction has deleted, over all runs.
    public var deletedEvents: Int64
    /// When it last deleted events (seconds since the epoch), or nil.
    public var compactedAt: Double?

    /// The first sequence a reader can still get.
    public var historyStart: Int64 { through + 1 }
}

extension SQLiteStore {
    /// Migration 6 → 7: the rollups of deleted events (the report's hourly sums, the
    /// same rows `report_hourly` holds) and how far compaction has gone.
    static let compactionTables = """
        CREATE TABLE IF NOT EXISTS journal_rollups \(ReportProjection.hourlySums)
        CREATE TABLE IF NOT EXISTS compaction_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            through INTEGER NOT NULL,
            events INTEGER NOT NULL,
            compacted_at REAL NOT NULL
        );
        """

    /// The default events per write transaction: small enough that an order never waits
    /// for one more than a few milliseconds.
    public static let compactionBatchSize = 500

    /// Where history starts and what compaction has deleted.
    public func compactionState() throws(StoreError) -> CompactionState {
        try reader.withLock { connection throws(StoreError) in try connection.compactionState() }
    }

    /// Deletes the journal's oldest events, from where history starts, while each is
    /// older than `cutoff`, every cursor has passed it (the cursors' table, and the
    /// subscribers named in `subscribers` that have none yet, which count as at 0), no
    /// dead letter or retry state names it or an event after it, and it is not the
    /// newest event (numbering goes on after the newest, so no sequence is given twice).
    ///
    /// Each batch of at most `batchSize` events is one write transaction: the report's
    /// and the totals' projections fold the batch first, its sums are added into
    /// `journal_rollups`, then its rows go. The conditions are read again in each
    /// transaction, so a rewind or a new dead letter between batches is respected.
    /// Then free pages go back to the file system, a bounded step at a time.
    ///
    /// `stops` is asked between batches: when it says yes, the run ends there (what was
    /// deleted stays deleted, whole batches only).
    public func compact(
        before cutoff: Date, subscribers: [String] = [], batchSize: Int = compactionBatchSize, now: Date = Date(),
        stops: () -> Bool = { false }
    ) throws(StoreError) -> CompactionResult {
        let cutoffMilliseconds = Int64((cutoff.timeIntervalSince1970 * 1000).rounded(.down))
        let writer = try writable()
        var result = CompactionResult(
            deletedEvents: 0, historyStart: 1, limit: .empty, batches: 0, longestBatchMilliseconds: 0, freedPages: 0, givesSpaceBack: false)
        let clock = ContinuousClock()
        while true {
            let started = clock.now
            let step = try writer.withLock { connection throws(StoreError) in
                try connection.writeTransaction { () throws(StoreError) -> (deleted: Int, through: Int64, limit: CompactionResult.Limit?) in
                    try Self.compactBatch(
                        connection, cutoff: cutoffMilliseconds, subscribers: subscribers, batchSize: max(1, batchSize),
                        now: now.timeIntervalSince1970)
                }
            }
            result.historyStart = step.through + 1
            if step.deleted > 0 {
                let elapsed = started.duration(to: clock.now)
                result.batches += 1
                result.deletedEvents += step.deleted
                result.longestBatchMilliseconds = max(
                    result.longestBatchMilliseconds, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            if let limit = step.limit {
                result.limit = limit
                break
            }
            if stops() { break }
        }
        (result.freedPages, result.givesSpaceBack) = try giveSpaceBack(writer)
        return result
    }

    /// One batch inside the open write transaction: how many events it deleted, where
    /// history now ends being deleted, and what stopped it (nil: there may be more).
    private static func compactBatch(
        _ connection: Connection, cutoff: Int64, subscribers: [String], batchSize: Int, now: Double
    ) throws(StoreError) -> (deleted: Int, through: Int64, limit: CompactionResult.Limit?) {
        let state = try connection.compactionState()
        let through = state.through
        let last = try connection.lastSequence()
        guard last > through else { return (0, through, .empty) }
        var bound = last - 1
        var limit = CompactionResult.Limit.newestEvent
        func lower(_ candidate: Int64, _ reason: CompactionResult.Limit) {
            if candidate < bound {
                bound = candidate
                limit = reason
            }
        }
        var cursors: [String: Int64] = [:]
        try connection.forEachRow("SELECT subscriber, sequence FROM cursors") { row throws(StoreError) in
            let name = try row.string(0, StoredColumn("cursors", "subscriber"), row: "of a cursor")
            cursors[name] = try row.integer(1, StoredColumn("cursors", "sequence"), row: "subscriber '\(name)'")
        }
        for name in subscribers where cursors[name] == nil { cursors[name] = 0 }
        for (name, cursor) in cursors.sorted(by: { $0.key < $1.key }) { lower(cursor, .subscriber(name, cursor: cursor)) }
        for (table, key) in [("dead_letters", "min(sequence)"), ("retry_states", "sequence")] {
            try connection.forEachRow("SELECT subscriber, \(key) FROM \(table) GROUP BY subscriber") { row throws(StoreError) in
                let name = try row.string(0, StoredColumn(table, "subscriber"), row: "of \(table)")
                // A sequence is at least 1 by its rule, so one before it is never below 0.
                let sequence = try row.integer(1, StoredColumn(table, "sequence"), row: "subscriber '\(name)'")
                lower(sequence - 1, table == "dead_letters" ? .deadLetter(name, sequence: sequence) : .retry(name, sequence: sequence))
            }
        }
        guard bound > through else { return (0, through, limit) }
        // The oldest events, in order, up to the first that is not older than the cutoff.
        var upTo = through
        var deleted = 0
        var reachedCutoff = false
        try connection.forEachRow("SELECT sequence, time FROM journal WHERE sequence > ?1 AND sequence <= ?2 ORDER BY sequence LIMIT ?3") {
            statement in
            statement.bind(1, through)
            statement.bind(2, bound)
            statement.bind(3, Int64(batchSize))
        } row: { row in
            guard !reachedCutoff else { return }
            if row.int64(1) >= cutoff {
                reachedCutoff = true
                return
            }
            upTo = row.int64(0)
            deleted += 1
        }
        guard upTo > through else { return (0, through, reachedCutoff ? .retention : limit) }
        // The projections include every event before it goes, so reports and totals read
        // the same after; their sums of these events are kept in the rollups too, which
        // a projection rebuilt later starts from.
        for fold in [ReportProjection.fold, TotalsProjection.fold] where try fold.folded(connection) < upTo {
            try fold.catchUp(connection, through: upTo)
        }
        for sum in rollupSums {
            try connection.run(
                """
                INSERT INTO journal_rollups (hour, kind, item, fruit, events, amount)
                \(sum)
                ON CONFLICT (hour, kind, item, fruit) DO UPDATE SET
                    events = events + excluded.events, amount = amount + excluded.amount
                """
            ) { statement in
                statement.bind(1, through)
                statement.bind(2, upTo)
            }
        }
        try connection.run("DELETE FROM journal WHERE sequence > ?1 AND sequence <= ?2") { statement in
            statement.bind(1, through)
            statement.bind(2, upTo)
        }
        try connection.run(
            """
            INSERT INTO compaction_state (id, through, events, compacted_at) VALUES (1, ?1, ?2, ?3)
            ON CONFLICT (id) DO UPDATE SET through = excluded.through, events = events + excluded.events,
                compacted_at = excluded.compacted_at
            """
        ) { statement in
            statement.bind(1, upTo)
            statement.bind(2, Int64(deleted))
            statement.bind(3, now)
        }
        let more = !reachedCutoff && upTo < bound
        return (deleted, upTo, more ? nil : (reachedCutoff ? .retention : limit))
    }

    /// The report's sums, each over a batch's rows by the primary key: the report's fold
    /// reads unknown types through `journal_by_type`, which for a batch of 500 rows would
    /// scan the whole index, once per batch.
    private static let rollupSums = ReportProjection.sums.map { $0.replacingText("INDEXED BY journal_by_type ", with: "") }

    /// Rewrites a file created before stores kept their free pages apart so that it
    /// does (`auto_vacuum = INCREMENTAL`, then `VACUUM`), leaving out its free pages;
    /// returns the file's pages before and after. Holds the write lock for the whole
    /// rewrite (an order waits until it ends), so it is an operator's one-time step,
    /// never taken on its own. A file that keeps its pages apart already is left as it is.
    public func rewriteKeepingFreePagesApart() throws(StoreError) -> (pagesBefore: Int64, pagesAfter: Int64) {
        let writer = try writable()
        return try writer.withLock { connection throws(StoreError) in
            let before = try connection.integer("PRAGMA page_count") ?? 0
            guard try connection.integer("PRAGMA auto_vacuum") != 2 else { return (before, before) }
            try connection.execute("PRAGMA auto_vacuum = INCREMENTAL; VACUUM")
            return (before, try connection.integer("PRAGMA page_count") ?? 0)
        }
    }

    /// Gives free pages back to the file system, at most 256 pages (1 MiB) per write
    /// transaction, when the file keeps its free pages apart (`auto_vacuum = INCREMENTAL`).
    /// Returns the pages given back and whether the file can give any.
    ///
    /// Stores are created so (`Schema.prepare`); one created before reuses its free
    /// pages for new events instead, until `rewriteKeepingFreePagesApart`.
    private func giveSpaceBack(_ writer: Locked<Connection>) throws(StoreError) -> (Int, Bool) {
        var freed = 0
        while true {
            let (mode, free) = try writer.withLock { connection throws(StoreError) in
                (try connection.integer("PRAGMA auto_vacuum") ?? 0, try connection.integer("PRAGMA freelist_count") ?? 0)
            }
            guard mode == 2 else { return (freed, false) }
            guard free > 0 else { return (freed, true) }
            let step = min(free, 256)
            try writer.withLock { connection throws(StoreError) in
                try connection.forEachRow("PRAGMA incremental_vacuum(\(step))") { _ in }
            }
            let after = try writer.withLock { connection throws(StoreError) in try connection.integer("PRAGMA freelist_count") ?? 0 }
            guard after < free else { return (freed, true) }
            freed += Int(free - after)
        }
    }
}

extension Connection {
    /// `compaction_state`, or a state of nothing deleted for a store never compacted.
    func compactionState() throws(StoreError) -> CompactionState {
        var state = CompactionState(through: 0, deletedEvents: 0, compactedAt: nil)
        try forEachRow("SELECT through, events, compacted_at FROM compaction_state WHERE id = 1") { row throws(StoreError) in
            state = CompactionState(
                through: try row.integer(0, StoredColumn("compaction_state", "through"), row: "1"),
                deletedEvents: try row.integer(1, StoredColumn("compaction_state", "events"), row: "1"),
                compactedAt: try row.time(2, StoredColumn("compaction_state", "compacted_at"), row: "1"))
        }
        return state
    }
}
