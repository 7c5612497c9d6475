import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JuiceMakerCore
import JuicePrimitives

/// The store's tables, by version, and the steps from each version to the next.
///
/// The version lives in `PRAGMA user_version`. Versions only go forward: a file is
/// migrated one step at a time, in one transaction, and a file newer than
/// `latestVersion` is refused untouched.
///
/// Each step creates only what is missing (`IF NOT EXISTS`), so a file whose
/// `user_version` lags the tables it already holds still moves forward; after the
/// steps, every table and index is compared with what this version creates, and a
/// file that differs is refused with what differs (`migrationFailed`), rolled back.
enum Schema {
    /// Version 1: the tables. Kept as it first shipped so migrations start from it.
    static let version1 = """
        CREATE TABLE stock (
            fruit TEXT PRIMARY KEY,
            quantity INTEGER NOT NULL CHECK (quantity >= 0)
        ) WITHOUT ROWID;
        CREATE TABLE journal (
            sequence INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            time INTEGER NOT NULL,
            type TEXT NOT NULL,
            change_id TEXT NOT NULL,
            event TEXT NOT NULL
        );
        CREATE TABLE cursors (
            subscriber TEXT PRIMARY KEY,
            sequence INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE dead_letters (
            subscriber TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            event_id TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            last_error TEXT NOT NULL,
            recorded_at REAL NOT NULL,
            UNIQUE (subscriber, sequence)
        );
        """

    /// `migrations[n - 1]` takes a file from version n to n + 1.
    static let migrations: [String] = [
        // 1 → 2: `juice events --type` reads one kind of event without a full scan.
        "CREATE INDEX IF NOT EXISTS journal_by_type ON journal (type, sequence);",
        // 2 → 3: durable subscribers' retry state (see SQLiteStore+RetryState.swift).
        SQLiteStore.retryStatesTable,
        // 3 → 4: the report's hourly projection, filled by the first `juice report`
        // (see SQLiteStore+Report.swift).
        ReportProjection.tables,
        // 4 → 5: when each durable subscriber last delivered (SQLiteStore+Deliveries.swift),
        // and the all-time totals the metrics read (SQLiteStore+Totals.swift).
        SQLiteStore.deliveriesTable + TotalsProjection.tables,
        // 5 → 6: what a recovery found lost, and where its numbering continues
        // (SQLiteStore+Losses.swift).
        SQLiteStore.lossesTables,
        // 6 → 7: the rollups of the events compaction deleted, and where history starts
        // (SQLiteStore+Compaction.swift); each subscriber's last rewind (SQLiteStore+Rewind.swift).
        SQLiteStore.compactionTables + SQLiteStore.rewindsTable,
    ]

    static var latestVersion: Int32 { Int32(migrations.count + 1) }

    /// Columns added to existing tables, by the version whose step adds them: added by
    /// that step only when missing (`ALTER TABLE` has no `IF NOT EXISTS`), so a file
    /// whose version lags its tables still moves forward.
    static let addedColumns: [(version: Int32, table: String, column: String, declaration: String)] = [
        // 5 → 6: each journal row's digest (EventDigest.swift).
        (6, "journal", "digest", "INTEGER")
    ]

    /// `ALTER TABLE … ADD COLUMN` of each column `addedColumns` gives `version`.
    static func columnAdditions(for version: Int32) -> [String] {
        addedColumns.filter { $0.version == version }.map { "ALTER TABLE \($0.table) ADD COLUMN \($0.column) \($0.declaration);" }
    }

    /// Runs step `step` (from version `step` to `step + 1`): its statements, then the
    /// columns it adds that the file lacks.
    private static func migrate(_ connection: Connection, step: Int) throws(StoreError) {
        try connection.execute(migrations[step - 1])
        for added in addedColumns where added.version == Int32(step + 1) {
            let present =
                try connection.integer("SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2") { statement in
                    statement.bind(1, added.table)
                    statement.bind(2, added.column)
                } ?? 0
            if present == 0 { try connection.execute("ALTER TABLE \(added.table) ADD COLUMN \(added.column) \(added.declaration)") }
        }
    }

    /// Creates the schema in a new file or migrates an older one, in one write
    /// transaction, then switches the file to write-ahead logging.
    ///
    /// The new file is written in rollback-journal mode, so its header carries the
    /// application id from the first commit on (what `StoreFile` checks); only then
    /// does it become a WAL file.
    static func prepare(_ connection: Connection, initialStock: Stock, keepsFreePagesApart: Bool = true) throws(StoreError) {
        let path = connection.path
        // A store of this version needs nothing written: that is read without the write
        // lock, so opening a store never queues behind another process's writer (a
        // write-ahead-log reader does not wait for one). Versions only go forward, so
        // what this read sees cannot need a migration a moment later.
        if try isLatest(connection) {
            try enableWriteAheadLog(connection)
            return
        }
        // A new file keeps its free pages apart, so `juice store compact` can give them
        // back (SQLite fixes this when it writes page 1, so it is said before the write
        // transaction; on a file that has tables it changes nothing).
        if keepsFreePagesApart { try connection.execute("PRAGMA auto_vacuum = INCREMENTAL") }
        try connection.writeTransaction { () throws(StoreError) in
            let (applicationID, version) = try identity(connection)
            let objects = try connection.integer("SELECT count(*) FROM sqlite_schema") ?? 0
            if applicationID == 0, version == 0, objects == 0 {
                try create(connection, initialStock: initialStock)
                return
            }
            guard applicationID == StoreFile.applicationID else {
                throw StoreError(.foreignDatabase(applicationID: nil), path: path)
            }
            guard version <= latestVersion else { throw StoreFile.newer(version, latest: latestVersion, path: path) }
            guard version >= 1 else {
                throw StoreError(.noSchemaVersion, path: path)
            }
            guard version < latestVersion else { return }
            do throws(StoreError) {
                for step in Int(version)..<Int(latestVersion) {
                    try migrate(connection, step: step)
                }
                if let difference = try difference(connection) {
                    throw StoreError(.migrationFailed(from: version, to: latestVersion, problem: difference), path: path)
                }
            } catch {
                switch error.reason {
                case let .engineFailure(_, _, message):
                    throw StoreError(.migrationFailed(from: version, to: latestVersion, problem: message), path: path)
                default:
                    throw error
                }
            }
            try connection.execute("PRAGMA user_version = \(latestVersion)")
        }
        try enableWriteAheadLog(connection)
    }

    /// The file's application id and schema version (`PRAGMA application_id`,
    /// `PRAGMA user_version`), 0 where unset.
    private static func identity(_ connection: Connection) throws(StoreError) -> (applicationID: Int32, version: Int32) {
        (
            Int32(truncatingIfNeeded: try connection.integer("PRAGMA application_id") ?? 0),
            Int32(truncatingIfNeeded: try connection.integer("PRAGMA user_version") ?? 0)
        )
    }

    /// Whether the file is a JuiceMaker store of exactly this schema version, read
    /// outside any write transaction.
    private static func isLatest(_ connection: Connection) throws(StoreError) -> Bool {
        let (applicationID, version) = try identity(connection)
        return applicationID == StoreFile.applicationID && version == latestVersion
    }

    /// Checks, without writing, that the file is a JuiceMaker store of exactly this
    /// schema version: what a read-only store, or one marked damaged, needs before use.
    static func requireLatest(_ connection: Connection) throws(StoreError) {
        let path = connection.path
        let (applicationID, version) = try identity(connection)
        guard applicationID == StoreFile.applicationID else {
            throw StoreError(.foreignDatabase(applicationID: nil), path: path)
        }
        guard version <= latestVersion else { throw StoreFile.newer(version, latest: latestVersion, path: path) }
        guard version >= 1 else { throw StoreError(.noSchemaVersion, path: path) }
        guard version == latestVersion else {
            throw StoreError(.migrationNeedsWriting(found: version, supported: latestVersion), path: path)
        }
    }

    /// Tables and indexes as this version creates them: each table's columns (name,
    /// declared type, NOT NULL, primary-key position) and each index's columns.
    private static let expectedShape: [String: String]? = {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else { return nil }
        defer { sqlite3_close_v2(handle) }
        let steps = migrations.enumerated().map { $0.element + columnAdditions(for: Int32($0.offset + 2)).joined() }
        guard sqlite3_exec(handle, ([version1] + steps).joined(separator: "\n"), nil, nil, nil) == SQLITE_OK else { return nil }
        return try? shape(handle)
    }()

    /// The names of the tables this version creates.
    static var tableNames: Set<String> {
        Set((expectedShape ?? [:]).keys.compactMap { $0.hasPrefix("table ") ? String($0.dropFirst(6)) : nil })
    }

    /// What differs between the file's tables and indexes and `expectedShape`, or nil.
    private static func difference(_ connection: Connection) throws(StoreError) -> String? {
        guard let expected = expectedShape else { return nil }
        let found: [String: String]
        do {
            found = try shape(connection.handle)
        } catch {
            return "\(error)"
        }
        for name in expected.keys.sorted() {
            guard let actual = found[name] else { return "\(name) is missing" }
            if actual != expected[name] {
                return "\(name) has \(actual) where this version has \(expected[name] ?? "")"
            }
        }
        return nil
    }

    private struct ShapeFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Every table's and index's columns in `handle`'s main schema, by name.
    private static func shape(_ handle: OpaquePointer) throws -> [String: String] {
        func rows(_ sql: String) throws -> [[String]] {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                throw ShapeFailure(description: String(cString: sqlite3_errmsg(handle)))
            }
            defer { sqlite3_finalize(statement) }
            var result: [[String]] = []
            var code = sqlite3_step(statement)
            while code == SQLITE_ROW {
                result.append(
                    (0..<sqlite3_column_count(statement)).map { column in
                        sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
                    })
                code = sqlite3_step(statement)
            }
            guard code == SQLITE_DONE else { throw ShapeFailure(description: String(cString: sqlite3_errmsg(handle))) }
            return result
        }
        var shape: [String: String] = [:]
        let objects = try rows("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'index')")
        for object in objects {
            let (type, name) = (object[0], object[1])
            let quoted = "'" + name.replacingText("'", with: "''") + "'"
            let columns =
                type == "table"
                ? try rows("SELECT name, type, \"notnull\", pk FROM pragma_table_info(\(quoted))").map { $0.joined(separator: " ") }
                : try rows("SELECT name FROM pragma_index_info(\(quoted))").map { $0[0] }
            shape["\(type) \(name)"] = "(" + columns.joined(separator: ", ") + ")"
        }
        return shape
    }

    private static func create(_ connection: Connection, initialStock: Stock) throws(StoreError) {
        try connection.execute(version1)
        for step in 1...migrations.count { try migrate(connection, step: step) }
        for fruit in Fruit.allCases {
            try connection.run("INSERT INTO stock (fruit, quantity) VALUES (?1, ?2)") { statement in
                statement.bind(1, fruit.id)
                statement.bind(2, Int64(initialStock[fruit]))
            }
        }
        try connection.execute("PRAGMA application_id = \(StoreFile.applicationID); PRAGMA user_version = \(latestVersion)")
    }

    /// WAL lets readers (`juice watch`, other processes) run while one process writes.
    ///
    /// Switching a new file to WAL needs its exclusive lock. When processes open a new
    /// file at once, SQLite answers busy at once (without its busy handler) where
    /// waiting could deadlock, so this backs off (1 ms, doubling to 50 ms) and tries
    /// again for up to the busy timeout the error message names.
    private static func enableWriteAheadLog(_ connection: Connection) throws(StoreError) {
        let deadline = ContinuousClock.now + .milliseconds(Int64(Connection.busyTimeoutMilliseconds))
        var pause = Duration.milliseconds(1)
        while true {
            do throws(StoreError) {
                var mode = ""
                try connection.forEachRow("PRAGMA journal_mode = WAL") { mode = $0.text(0) }
                guard mode.lowercased() == "wal" else {
                    throw StoreError(.sharedLoggingRefused(mode: mode), path: connection.path)
                }
                return
            } catch  where error.kind == .busy && ContinuousClock.now + pause < deadline {
                sleepBriefly(pause)
                pause = min(pause * 2, .milliseconds(50))
            }
        }
    }

    private static func sleepBriefly(_ pause: Duration) {
        let (seconds, attoseconds) = pause.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        // Not polling: the lock is another process's, and SQLite says nothing when it is
        // released; a bounded backoff (to the busy timeout) is all there is to wait on.
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }
}
