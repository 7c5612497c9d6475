import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// Files written by earlier versions open, keep their data, and are moved forward.
@Suite(.tags(.unit), .offPool) struct MigrationTests {
    /// Builds a store as version 1 wrote it: its tables exactly as they shipped,
    /// stock of 7 each and one journaled restock.
    private func buildVersion1(at path: String) throws -> EventEnvelope {
        var ids = EventIDGenerator()
        let restock = EventEnvelope(
            sequence: 1, id: ids.next(unixMilliseconds: 1_700_000_000_000),
            time: Date(timeIntervalSince1970: 1_700_000_000), source: "/juice-maker",
            changeID: ids.next(unixMilliseconds: 1_700_000_000_000),
            event: .stockChanged(fruit: .kiwi, from: 6, to: 7, reason: .restock))
        let database = try RawDatabase(path)
        try database.execute(
            """
            CREATE TABLE stock (fruit TEXT PRIMARY KEY, quantity INTEGER NOT NULL CHECK (quantity >= 0)) WITHOUT ROWID;
            CREATE TABLE journal (sequence INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, time INTEGER NOT NULL,
                type TEXT NOT NULL, change_id TEXT NOT NULL, event TEXT NOT NULL);
            CREATE TABLE cursors (subscriber TEXT PRIMARY KEY, sequence INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE dead_letters (subscriber TEXT NOT NULL, sequence INTEGER NOT NULL, event_id TEXT NOT NULL,
                attempts INTEGER NOT NULL, last_error TEXT NOT NULL, recorded_at REAL NOT NULL, UNIQUE (subscriber, sequence));
            INSERT INTO stock VALUES ('strawberry', 7), ('banana', 7), ('pineapple', 7), ('kiwi', 7), ('mango', 7);
            INSERT INTO cursors VALUES ('webhook', 1);
            PRAGMA application_id = \(0x4A55_4943);
            PRAGMA user_version = 1;
            PRAGMA journal_mode = WAL;
            """)
        _ = try database.rows(
            "INSERT INTO journal VALUES (1, ?1, 1700000000000, 'juicemaker.stock.changed', ?2, ?3)",
            [restock.id.description, restock.changeID.description, CloudEventFormat.encode(restock)])
        return restock
    }

    @Test func aVersion1FileIsMigratedAndKeepsItsData() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let restock = try buildVersion1(at: path)

        let store = try SQLiteStore(path: path, initialStock: Stock(repeating: 10))
        #expect(try store.stock() == Stock(repeating: 7))
        #expect(try store.events(after: 0, limit: 10) == [restock])
        #expect(try store.cursor(named: "webhook") == 1)
        try JuiceMaker(store: store).make(.mangoKiwi)
        #expect(try store.lastSequence() == 4)

        let raw = try RawDatabase(path)
        #expect(try raw.value("PRAGMA user_version") == "7")
        #expect(try raw.value("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'journal_by_type'") == "1")
        #expect(try raw.value("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'retry_states'") == "1")
        #expect(try raw.value("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'deliveries'") == "1")
        #expect(try raw.value("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'journal_totals'") == "1")
        // Version 5's totals start empty and fold the old journal on first use.
        #expect(try store.journalTotals().juicesMade == ["mango-kiwi": 1])
        // Version 4's report projection starts empty and folds the old journal on first use.
        let report = try store.report(firstHour: 0, lastHour: 1 << 40)
        #expect(report.throughSequence == 4)
        #expect(report.rows.filter { $0.kind == .sale }.map(\.item) == ["mango-kiwi"])
    }

    @Test func retryStatesRoundTripAndClear() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"))
        #expect(try store.retryState(for: "webhook") == nil)
        let state = DeliveryRetryState(sequence: 3, attempts: 2, nextAttemptAt: 1_700_000_300.5, lastError: "HTTP 500", disabled: true)
        try store.setRetryState(state, for: "webhook")
        #expect(try store.retryState(for: "webhook") == state)
        #expect(try store.retryState(for: "other") == nil)
        try store.setRetryState(nil, for: "webhook")
        #expect(try store.retryState(for: "webhook") == nil)
    }

    @Test func reopeningAMigratedFileChangesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        _ = try buildVersion1(at: path)
        _ = try SQLiteStore(path: path)
        let store = try SQLiteStore(path: path)
        #expect(try store.stock() == Stock(repeating: 7))
        #expect(try RawDatabase(path).value("PRAGMA user_version") == "7")
    }

    /// Builds a store as version `version` (1 to 4) wrote it: version 1's tables
    /// and the steps up to `version`, in the DDL those versions shipped.
    private func buildVersion(_ version: Int, at path: String) throws -> EventEnvelope {
        let restock = try buildVersion1(at: path)
        let database = try RawDatabase(path)
        if version >= 2 { try database.execute("CREATE INDEX journal_by_type ON journal (type, sequence); PRAGMA user_version = 2;") }
        if version >= 3 {
            try database.execute(
                """
                CREATE TABLE retry_states (subscriber TEXT PRIMARY KEY, sequence INTEGER NOT NULL, attempts INTEGER NOT NULL,
                    next_attempt_at REAL NOT NULL, last_error TEXT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
                INSERT INTO retry_states VALUES ('webhook', 1, 2, 1700000300.5, 'HTTP 500', 0);
                PRAGMA user_version = 3;
                """)
        }
        if version >= 4 {
            try database.execute(
                """
                CREATE TABLE report_state (id INTEGER PRIMARY KEY CHECK (id = 1), folded INTEGER NOT NULL, version INTEGER NOT NULL);
                CREATE TABLE report_hourly (hour INTEGER NOT NULL, kind INTEGER NOT NULL, item TEXT NOT NULL, fruit TEXT NOT NULL,
                    events INTEGER NOT NULL, amount INTEGER NOT NULL, PRIMARY KEY (hour, kind, item, fruit)) WITHOUT ROWID;
                PRAGMA user_version = 4;
                """)
        }
        return restock
    }

    @Test(arguments: [1, 2, 3, 4])
    func everyOlderVersionMigratesWithItsData(version: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let restock = try buildVersion(version, at: path)
        #expect(try RawDatabase(path).value("PRAGMA user_version") == "\(version)")

        let store = try SQLiteStore(path: path)
        #expect(try store.stock() == Stock(repeating: 7))
        #expect(try store.events(after: 0, limit: 10) == [restock])
        #expect(try store.events(after: 0, kinds: [.stockChanged], limit: 10, newest: false) == [restock])
        #expect(try store.cursor(named: "webhook") == 1)
        if version >= 3 {
            #expect(try store.retryState(for: "webhook")?.lastError == "HTTP 500")
        }
        try JuiceMaker(store: store).make(.mangoKiwi)
        #expect(try store.report(firstHour: 0, lastHour: 1 << 40).throughSequence == 4)
        #expect(try RawDatabase(path).value("PRAGMA user_version") == "7")
    }

    /// A file whose `user_version` lags the tables it holds (restored from a copy of
    /// its header, or set back by hand) moves forward instead of failing on
    /// `CREATE INDEX … already exists`.
    @Test(arguments: [1, 2, 3, 4])
    func aVersionThatLagsItsTablesStillMigrates(version: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try JuiceMaker(store: SQLiteStore(path: path)).make(.mangoKiwi)
        try RawDatabase(path).execute("PRAGMA user_version = \(version)")

        let store = try SQLiteStore(path: path)
        #expect(try store.lastSequence() == 3)
        try JuiceMaker(store: store).make(.banana)
        #expect(try RawDatabase(path).value("PRAGMA user_version") == "7")
    }

    /// A table of the right name and the wrong shape cannot be migrated over: the
    /// store says which version could not be moved and why, and the file keeps its
    /// version.
    @Test func aTableOfTheWrongShapeIsRefusedWithTheReason() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        _ = try buildVersion(2, at: path)
        try RawDatabase(path).execute("CREATE TABLE retry_states (subscriber TEXT PRIMARY KEY, note TEXT)")
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("opened a store whose retry_states table has the wrong columns")
        } catch {
            #expect(error.kind == .corrupt, "\(error)")
            #expect(error.description.contains("from version 2 to 7"), "\(error)")
            #expect(error.description.contains("retry_states"), "\(error)")
        }
        #expect(try RawDatabase(path).value("PRAGMA user_version") == "2")
    }

    @Test func aNewerVersionIsRefusedSayingWhichVersions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        _ = try SQLiteStore(path: path)
        try RawDatabase(path).execute("PRAGMA user_version = 8")
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("opened a store of a newer schema")
        } catch {
            #expect(error.kind == .newerVersion)
            #expect(error.description.contains("schema version 8; this one knows up to 7"), "\(error)")
        }
    }
}
