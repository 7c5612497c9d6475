import JuiceMakerCore

/// The store's tables, by version, and the steps from each version to the next.
///
/// The version lives in `PRAGMA user_version`. Versions only go forward: a file is
/// migrated one step at a time, in one transaction, and a file newer than
/// `latestVersion` is refused untouched.
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
        "CREATE INDEX journal_by_type ON journal (type, sequence);",
        // 2 → 3: durable subscribers' retry state (see SQLiteStore+RetryState.swift).
        SQLiteStore.retryStatesTable,
        // 3 → 4: the report's hourly projection, filled by the first `juice report`
        // (see SQLiteStore+Report.swift).
        ReportProjection.tables,
    ]

    static var latestVersion: Int32 { Int32(migrations.count + 1) }

    /// Creates the schema in a new file or migrates an older one, in one write
    /// transaction, then switches the file to write-ahead logging.
    ///
    /// The new file is written in rollback-journal mode, so its header carries the
    /// application id from the first commit on (what `StoreFile` checks); only then
    /// does it become a WAL file.
    static func prepare(_ connection: Connection, initialStock: Stock) throws(StoreError) {
        let path = connection.path
        try connection.writeTransaction { () throws(StoreError) in
            let applicationID = Int32(truncatingIfNeeded: try connection.integer("PRAGMA application_id") ?? 0)
            let version = Int32(truncatingIfNeeded: try connection.integer("PRAGMA user_version") ?? 0)
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
            for step in Int(version)..<Int(latestVersion) {
                try connection.execute(migrations[step - 1])
            }
            if version < latestVersion {
                try connection.execute("PRAGMA user_version = \(latestVersion)")
            }
        }
        try enableWriteAheadLog(connection)
    }

    private static func create(_ connection: Connection, initialStock: Stock) throws(StoreError) {
        try connection.execute(version1)
        for migration in migrations { try connection.execute(migration) }
        for fruit in Fruit.allCases {
            try connection.run("INSERT INTO stock (fruit, quantity) VALUES (?1, ?2)") { statement in
                statement.bind(1, fruit.id)
                statement.bind(2, Int64(initialStock[fruit]))
            }
        }
        try connection.execute("PRAGMA application_id = \(StoreFile.applicationID); PRAGMA user_version = \(latestVersion)")
    }

    /// WAL lets readers (`juice watch`, other processes) run while one process writes.
    private static func enableWriteAheadLog(_ connection: Connection) throws(StoreError) {
        var attempt = 0
        while true {
            do throws(StoreError) {
                var mode = ""
                try connection.forEachRow("PRAGMA journal_mode = WAL") { mode = $0.text(0) }
                guard mode.lowercased() == "wal" else {
                    throw StoreError(.writeAheadLogRefused(journalMode: mode), path: connection.path)
                }
                return
            } catch where error.kind == .busy && attempt < 5 {
                attempt += 1
            }
        }
    }
}
