import JuiceMakerCore

/// What the operator's report reads: the journal folded into hourly sums (the
/// `report_hourly` projection), caught up on demand.
///
/// The projection is durable and lazy. Orders never touch it (the order path stays as
/// it was); a report first folds the journal rows after `report_state.folded` into it,
/// in SQL, in the same write transaction in which it then reads the sums and the
/// stock, so figures, stock and `throughSequence` are one consistent snapshot. A
/// report after a few orders folds a few rows; the first report over a long journal
/// folds all of it once.
public struct ReportSnapshot: Sendable, Equatable {
    /// One hourly sum: what `kind` counts, for `item` (a juice, a fruit or, for
    /// unknown events, their type), `fruit` for shortages, in hour `hour` (hours
    /// since the Unix epoch, UTC).
    public struct Row: Sendable, Equatable {
        public enum Kind: Int, Sendable {
            /// `juiceMade`: item = juice, events = orders, amount = cups.
            case sale = 1
            /// `orderFailed`: item = juice, events = failed orders, amount = cups not made.
            case lostSale = 2
            /// `orderFailed` shortages: item = juice, fruit, events = orders short of it, amount = missing.
            case shortage = 3
            /// `juiceMade` consumed: item = fruit, events = orders, amount = fruit used.
            case consumed = 4
            /// Events of a type this version does not know: item = the type, events = how many.
            case unknown = 5
        }

        public var hour: Int64
        public var kind: Kind
        public var item: String
        public var fruit: String
        public var events: Int
        public var amount: Int

        public init(hour: Int64, kind: Kind, item: String, fruit: String = "", events: Int, amount: Int) {
            self.hour = hour
            self.kind = kind
            self.item = item
            self.fruit = fruit
            self.events = events
            self.amount = amount
        }
    }

    /// The hourly sums of the hours asked for, in no particular order.
    public var rows: [Row]
    /// The stock when the sums were read.
    public var stock: Stock
    /// The last journal sequence the sums include (0 for an empty journal).
    public var throughSequence: Int64
    /// Whether the journal holds any event at all (also before the hours asked for).
    public var journalIsEmpty: Bool

    public init(rows: [Row], stock: Stock, throughSequence: Int64, journalIsEmpty: Bool) {
        self.rows = rows
        self.stock = stock
        self.throughSequence = throughSequence
        self.journalIsEmpty = journalIsEmpty
    }
}

extension SQLiteStore {
    /// The hourly sums of hours `firstHour...lastHour` (hours since the Unix epoch),
    /// after folding every new journal row into the projection, and the stock now.
    ///
    /// A store that may not be written (read-only, or marked damaged), or whose write
    /// lock another connection holds now, folds the new rows in memory instead, for
    /// this answer only: the same figures, nothing stored, and no wait for a writer.
    public func report(firstHour: Int64, lastHour: Int64) throws(StoreError) -> ReportSnapshot {
        let folded = try writer.flatMap { writer throws(StoreError) -> ReportSnapshot? in
            guard !mark.isMarked() else { return nil }
            return try writer.withLock { connection throws(StoreError) -> ReportSnapshot? in
                guard try connection.beginImmediateIfFree() else { return nil }
                do throws(StoreError) {
                    let snapshot = try Self.foldAndRead(connection, firstHour: firstHour, lastHour: lastHour)
                    try connection.commitTransaction()
                    return snapshot
                } catch {
                    connection.rollback()
                    throw error
                }
            }
        }
        if let folded { return folded }
        return try reader.withLock { connection throws(StoreError) in
            try ReportProjection.readWithoutFolding(connection, firstHour: firstHour, lastHour: lastHour)
        }
    }

    /// Folds the new journal rows into the projection and reads the hours asked for
    /// and the stock, inside the open write transaction.
    private static func foldAndRead(_ connection: Connection, firstHour: Int64, lastHour: Int64) throws(StoreError) -> ReportSnapshot {
        let last = try connection.lastSequence()
        try ReportProjection.catchUp(connection, through: last)
        var rows: [ReportSnapshot.Row] = []
        var total = StoredSums()
        try connection.forEachRow(ReportProjection.select) { statement in
            statement.bind(1, firstHour)
            statement.bind(2, lastHour)
        } row: { row throws(StoreError) in
            guard let read = try ReportSnapshot.Row.read(row, of: "report_hourly") else { return }
            try total.add(read, of: "report_hourly")
            rows.append(read)
        }
        return ReportSnapshot(rows: rows, stock: try connection.readStock(), throughSequence: last, journalIsEmpty: last == 0)
    }
}

/// The projection's tables and the SQL that keeps them.
enum ReportProjection {
    /// Bumped when the fold's meaning changes: a store folded by another version is
    /// folded again from the start.
    static let version: Int64 = 1

    /// Migration 3 → 4: the projection's tables (empty; the first report fills them).
    static let tables = """
        CREATE TABLE IF NOT EXISTS report_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            folded INTEGER NOT NULL,
            version INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS report_hourly \(hourlySums)
        """

    /// The columns of a table of hourly sums (`report_hourly`, `journal_rollups`).
    static let hourlySums = """
        (
            hour INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            item TEXT NOT NULL,
            fruit TEXT NOT NULL,
            events INTEGER NOT NULL,
            amount INTEGER NOT NULL,
            PRIMARY KEY (hour, kind, item, fruit)
        ) WITHOUT ROWID;
        """

    static let select = """
        SELECT hour, kind, item, fruit, events, amount FROM report_hourly WHERE hour BETWEEN ?1 AND ?2
        """

    static let rollupSelect = """
        SELECT hour, kind, item, fruit, events, amount FROM journal_rollups WHERE hour BETWEEN ?1 AND ?2
        """

    private static let upsert = """
        ON CONFLICT (hour, kind, item, fruit) DO UPDATE SET
            events = events + excluded.events, amount = amount + excluded.amount
        """

    private static let made = EventKind.juiceMade.cloudEventType
    private static let failed = EventKind.orderFailed.cloudEventType
    private static let known = EventKind.allCases.map { "'\($0.cloudEventType)'" }.joined(separator: ", ")

    /// One query per kind of sum, each over journal rows `?1 < sequence <= ?2`, giving
    /// `hour, kind, item, fruit, events, amount`. A sale or lost sale without a juice
    /// is summed under `?`, which the report counts as skipped. The unknown types are
    /// found through the `(type, sequence)` index, which holds every column that
    /// filter reads (faster than reading the table's rows).
    static let sums = [
        """
        SELECT time / 3600000, 1, coalesce(event ->> '$.data.juice', '?'), '', count(*), coalesce(sum(event ->> '$.data.count'), 0)
        FROM journal WHERE type = '\(made)' AND sequence > ?1 AND sequence <= ?2
        GROUP BY 1, 3
        """,
        """
        SELECT time / 3600000, 2, coalesce(event ->> '$.data.juice', '?'), '', count(*), coalesce(sum(event ->> '$.data.count'), 0)
        FROM journal WHERE type = '\(failed)' AND sequence > ?1 AND sequence <= ?2
        GROUP BY 1, 3
        """,
        """
        SELECT journal.time / 3600000, 3, coalesce(journal.event ->> '$.data.juice', '?'), short.key, count(*), sum(short.value)
        FROM journal, json_each(journal.event, '$.data.shortages') AS short
        WHERE journal.type = '\(failed)' AND journal.sequence > ?1 AND journal.sequence <= ?2 AND short.value > 0
        GROUP BY 1, 3, 4
        """,
        """
        SELECT journal.time / 3600000, 4, used.key, '', count(*), sum(used.value)
        FROM journal, json_each(journal.event, '$.data.consumed') AS used
        WHERE journal.type = '\(made)' AND journal.sequence > ?1 AND journal.sequence <= ?2 AND used.value > 0
        GROUP BY 1, 3
        """,
        """
        SELECT time / 3600000, 5, type, '', count(*), 0
        FROM journal INDEXED BY journal_by_type WHERE sequence > ?1 AND sequence <= ?2 AND type NOT IN (\(known))
        GROUP BY 1, 3
        """,
    ]

    /// Each sum added into the projection.
    private static let folds = sums.map { "INSERT INTO report_hourly (hour, kind, item, fruit, events, amount)\n\($0) \(upsert)" }

    /// The report of a store that may not be written: the stored sums of the hours
    /// asked for plus the rows not folded yet, summed here, in one read transaction.
    static func readWithoutFolding(_ connection: Connection, firstHour: Int64, lastHour: Int64) throws(StoreError) -> ReportSnapshot {
        try connection.run("BEGIN")
        do {
            let last = try connection.lastSequence()
            var folded: Int64 = 0
            var storedVersion: Int64?
            if let state = try fold.state(connection) { (folded, storedVersion) = (state.folded, state.version) }
            struct Key: Hashable {
                var hour: Int64, kind: ReportSnapshot.Row.Kind, item: String, fruit: String
            }
            var sums: [Key: (events: Int, amount: Int)] = [:]
            // Every row's sums added up fit in an `Int`, so no sum of some of them overflows.
            var total = StoredSums()
            func add(_ row: Statement, of table: String) throws(StoreError) {
                guard let read = try ReportSnapshot.Row.read(row, of: table) else { return }
                guard read.hour >= firstHour, read.hour <= lastHour else { return }
                try total.add(read, of: table)
                let key = Key(hour: read.hour, kind: read.kind, item: read.item, fruit: read.fruit)
                let sum = sums[key] ?? (0, 0)
                sums[key] = (sum.events + read.events, sum.amount + read.amount)
            }
            if storedVersion == version {
                try connection.forEachRow(select) { statement in
                    statement.bind(1, firstHour)
                    statement.bind(2, lastHour)
                } row: { row throws(StoreError) in
                    try add(row, of: "report_hourly")
                }
            } else {
                // Another version's sums: the rollups, then the journal after them.
                try connection.forEachRow(rollupSelect) { statement in
                    statement.bind(1, firstHour)
                    statement.bind(2, lastHour)
                } row: { row throws(StoreError) in
                    try add(row, of: "journal_rollups")
                }
                folded = try connection.compactionState().through
            }
            if last > folded {
                for sql in Self.sums {
                    try connection.forEachRow(sql) { statement in
                        statement.bind(1, folded)
                        statement.bind(2, last)
                    } row: { row throws(StoreError) in
                        // Sums of journal rows, held to the rules of the rows they would be folded into.
                        try add(row, of: "report_hourly")
                    }
                }
            }
            let rows = sums.map { key, sum in
                ReportSnapshot.Row(hour: key.hour, kind: key.kind, item: key.item, fruit: key.fruit, events: sum.events, amount: sum.amount)
            }
            let snapshot = ReportSnapshot(rows: rows, stock: try connection.readStock(), throughSequence: last, journalIsEmpty: last == 0)
            try connection.run("COMMIT")
            return snapshot
        } catch {
            connection.rollback()
            throw error
        }
    }

    /// Folds journal rows after the projection's cursor up to `last`, inside the open
    /// write transaction. A projection of another fold version starts over.
    static func catchUp(_ connection: Connection, through last: Int64) throws(StoreError) {
        try fold.catchUp(connection, through: last)
    }

    /// The projection's fold; started over, it starts from the rollups.
    static let fold = ProjectionFold(
        table: "report_hourly", stateTable: "report_state", folds: folds, version: version,
        seed:
            "INSERT INTO report_hourly (hour, kind, item, fruit, events, amount) SELECT hour, kind, item, fruit, events, amount FROM journal_rollups")
}

extension ReportSnapshot.Row {
    /// A row of `SELECT hour, kind, item, fruit, events, amount` by the rules of
    /// `table`'s columns; nil for a kind this version does not report.
    static func read(_ row: Statement, of table: String) throws(StoreError) -> ReportSnapshot.Row? {
        let hour = try row.integer(0, StoredColumn(table, "hour"), row: "of an hour")
        let kindNumber = try row.count(1, StoredColumn(table, "kind"), row: "hour \(hour)")
        let item = try row.string(2, StoredColumn(table, "item"), row: "hour \(hour) kind \(kindNumber)")
        let fruit = try row.string(3, StoredColumn(table, "fruit"), row: "hour \(hour) kind \(kindNumber) item '\(item)'")
        let key = "hour \(hour) kind \(kindNumber) item '\(item)' fruit '\(fruit)'"
        let events = try row.count(4, StoredColumn(table, "events"), row: key)
        let amount = try row.count(5, StoredColumn(table, "amount"), row: key)
        guard let kind = Kind(rawValue: kindNumber) else { return nil }
        return ReportSnapshot.Row(hour: hour, kind: kind, item: item, fruit: fruit, events: events, amount: amount)
    }
}

/// The sums of every row read so far, events and amounts apart: while both fit in an
/// `Int`, so does any sum of some of the rows (none is below 0), which is all a
/// report or the totals add up. Rows whose sums go past are damage.
struct StoredSums {
    private var events = 0
    private var amount = 0

    mutating func add(_ row: ReportSnapshot.Row, of table: String) throws(StoreError) {
        try add(events: row.events, amount: row.amount, of: table, row: "hour \(row.hour) kind \(row.kind.rawValue) item '\(row.item)'")
    }

    mutating func add(events: Int, amount: Int, of table: String, row: @autoclosure () -> String) throws(StoreError) {
        self.events = try StoredColumn.adding(events, to: self.events, StoredColumn(table, "events"), row: row())
        self.amount = try StoredColumn.adding(amount, to: self.amount, StoredColumn(table, "amount"), row: row())
    }
}
