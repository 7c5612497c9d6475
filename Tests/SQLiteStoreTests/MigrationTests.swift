import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// Files written by earlier versions open, keep their data, and are moved forward.
@Suite struct MigrationTests {
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
        try database.execute("""
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
        #expect(try raw.value("PRAGMA user_version") == "4")
        #expect(try raw.value("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'journal_by_type'") == "1")
        #expect(try raw.value("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'retry_states'") == "1")
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
        #expect(try RawDatabase(path).value("PRAGMA user_version") == "4")
    }
}
