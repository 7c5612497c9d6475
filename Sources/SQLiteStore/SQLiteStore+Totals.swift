#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JuiceMakerCore

extension SQLiteStore: JournalTotalsReading {
    /// The totals from the `journal_totals` projection, first caught up with the
    /// journal rows after its cursor (the report's sums of those rows, added per juice
    /// and fruit), with the stock and the journal's length read in the same write
    /// transaction: one consistent snapshot, whose cost grows with the rows added
    /// since the last read, not with the journal. Plus the bytes of the database file
    /// and its write-ahead log.
    ///
    /// A store that may not be written (read-only, or marked damaged), or whose write
    /// lock another process holds, sums the report's projection over every hour
    /// instead, for this answer only (folding new rows in memory, as the report does):
    /// the totals never wait for a writer.
    package func journalTotals() throws(StoreError) -> JournalTotals {
        var totals: JournalTotals
        let caughtUp = try writer.flatMap { writer throws(StoreError) -> JournalTotals? in
            guard !mark.isMarked() else { return nil }
            return try writer.withLock { connection throws(StoreError) -> JournalTotals? in
                guard try connection.beginImmediateIfFree() else { return nil }
                do throws(StoreError) {
                    let last = try connection.lastSequence()
                    try TotalsProjection.catchUp(connection, through: last)
                    var totals = JournalTotals(stock: try connection.readStock(), events: last)
                    var total = StoredSums()
                    try connection.forEachRow("SELECT kind, item, events, amount FROM journal_totals") { row throws(StoreError) in
                        let kind = try row.count(0, StoredColumn("journal_totals", "kind"), row: "of the totals")
                        let item = try row.string(1, StoredColumn("journal_totals", "item"), row: "kind \(kind)")
                        let key = "kind \(kind) item '\(item)'"
                        let events = try row.count(2, StoredColumn("journal_totals", "events"), row: key)
                        let amount = try row.count(3, StoredColumn("journal_totals", "amount"), row: key)
                        try total.add(events: events, amount: amount, of: "journal_totals", row: key)
                        totals.add(kind: kind, item: item, events: events, amount: amount)
                    }
                    try connection.commitTransaction()
                    return totals
                } catch {
                    connection.rollback()
                    throw error
                }
            }
        }
        if let caughtUp {
            totals = caughtUp
        } else {
            let snapshot = try report(firstHour: .min, lastHour: .max)
            totals = JournalTotals(stock: snapshot.stock, events: snapshot.throughSequence)
            for row in snapshot.rows { totals.add(kind: row.kind.rawValue, item: row.item, events: row.events, amount: row.amount) }
        }
        totals.storeBytes = Self.bytes(of: path)
        return totals
    }

    /// The sizes of the file at `path` and of its write-ahead log, 0 for one that is not there.
    private static func bytes(of path: String) -> Int64 {
        [path, path + "-wal"].reduce(0) { total, file in
            var info = stat()
            return stat(file, &info) == 0 ? total + Int64(info.st_size) : total
        }
    }
}

extension JournalTotals {
    /// Adds one sum of the report's kinds (`ReportSnapshot.Row.Kind`): sales in cups,
    /// lost sales as orders, fruit consumed; the others are not totals.
    fileprivate mutating func add(kind: Int, item: String, events: Int, amount: Int) {
        switch ReportSnapshot.Row.Kind(rawValue: kind) {
        case .sale: juicesMade[item, default: 0] += amount
        case .lostSale: ordersFailed[item, default: 0] += events
        case .consumed: fruitConsumed[item, default: 0] += amount
        case .shortage, .unknown, nil: break
        }
    }
}

/// The all-time totals' tables and the SQL that keeps them: the report projection's
/// sums (`ReportProjection.sums`) of new journal rows, added per kind and item.
enum TotalsProjection {
    /// Migration 4 → 5 (with the deliveries table): the tables, empty; the first read
    /// fills them.
    static let tables = """
        CREATE TABLE IF NOT EXISTS journal_totals (
            kind INTEGER NOT NULL,
            item TEXT NOT NULL,
            events INTEGER NOT NULL,
            amount INTEGER NOT NULL,
            PRIMARY KEY (kind, item)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS journal_totals_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            folded INTEGER NOT NULL,
            version INTEGER NOT NULL
        );
        """

    /// Each of the report's sums over rows `?1 < sequence <= ?2`, added into the totals.
    private static let folds = ReportProjection.sums.map { sum in
        """
        WITH sums (hour, kind, item, fruit, events, amount) AS (\(sum))
        INSERT INTO journal_totals (kind, item, events, amount)
        SELECT kind, item, sum(events), sum(amount) FROM sums WHERE kind IN (1, 2, 4) GROUP BY kind, item
        ON CONFLICT (kind, item) DO UPDATE SET events = events + excluded.events, amount = amount + excluded.amount
        """
    }

    /// Folds journal rows after the totals' cursor up to `last`, inside the open write
    /// transaction. Totals of another fold version (`ReportProjection.version`) start over.
    static func catchUp(_ connection: Connection, through last: Int64) throws(StoreError) {
        try fold.catchUp(connection, through: last)
    }

    /// The totals' fold; started over, they start from the rollups.
    static let fold = ProjectionFold(
        table: "journal_totals", stateTable: "journal_totals_state", folds: folds, version: ReportProjection.version,
        seed: """
            INSERT INTO journal_totals (kind, item, events, amount)
            SELECT kind, item, sum(events), sum(amount) FROM journal_rollups WHERE kind IN (1, 2, 4) GROUP BY kind, item
            """)
}
