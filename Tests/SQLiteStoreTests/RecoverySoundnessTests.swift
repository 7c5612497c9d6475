import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// A recovered store is sound by construction: every row passes the same checks
/// whichever reader found it, the header's page size is not trusted over the pages,
/// no sequence is given twice, and what a subscriber lost is said.
@Suite(.tags(.unit), .offPool) struct RecoverySoundnessTests {
    private func history(at path: String, changes: Int = 150) throws -> [EventEnvelope] {
        try Damage.makeHistory(at: path, changes: changes)
        return try SQLiteStore(path: path).events(after: 0, limit: .max)
    }

    /// The store loses its last pages; its subscribers' cursors were further on than
    /// what survives. The next order is numbered after every cursor (a reused number
    /// would be taken for delivered), and the subscriber that had not been sent the
    /// lost events is told which, until a person acknowledges them.
    @Test func theNumberingContinuesAfterEveryCursorAndLossesAreSaid() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let original = try history(at: path)
        let last = try #require(original.last?.sequence)
        do {
            let store = try SQLiteStore(path: path)
            try store.setCursor(named: "caught-up", to: last)
            try store.setCursor(named: "behind", to: last - 40)
        }
        let size = try #require(Damage.size(of: path))
        let cut = directory.file("cut.db")
        try Damage.cut(path, to: Int(size) - 3 * Damage.pageSize, as: cut)

        let report = try SQLiteStore.recover(from: cut, to: directory.file("recovered.db"))
        let saved = try Damage.expectSound(report, original: original)
        let kept = try #require(saved.last)
        #expect(kept < last, "the cut cost no event: the test must cut deeper")
        #expect(report.lastSequence == last)
        let lostRange = (kept + 1)...last
        #expect(report.lostEvents.map(\.subscriber) == ["behind"])
        #expect(report.lostEvents.first?.sequences == max(kept + 1, last - 39)...last)

        let recovered = try SQLiteStore(path: report.path)
        let maker = JuiceMaker(store: recovered)
        try maker.make(.banana)
        let new = try recovered.events(after: kept, limit: .max)
        #expect(!new.isEmpty && new.allSatisfy { !lostRange.contains($0.sequence) && $0.sequence > last }, "\(new.map(\.sequence))")
        #expect(try recovered.cursors().values.allSatisfy { cursor in new.allSatisfy { $0.sequence > cursor } })

        #expect(try recovered.lostEvents(for: nil) == report.lostEvents)
        #expect(try recovered.acknowledgeLostEvents(of: "behind") == 1)
        #expect(try recovered.lostEvents(for: nil).isEmpty)

        // A second recovery of the recovered store keeps the numbering's floor.
        let again = try SQLiteStore.recover(from: report.path, to: directory.file("again.db"))
        let maker2 = try JuiceMaker(store: SQLiteStore(path: again.path))
        try maker2.make(.banana)
        #expect(try SQLiteStore(path: again.path).lastSequence() > new.last?.sequence ?? last)
    }

    /// Only the header's page size is changed (bytes 16–17), to every other legal
    /// value and to 1 (65,536): the pages still say 4,096, and every event is saved.
    @Test(arguments: [512, 1024, 2048, 8192, 16384, 32768, 1])
    func aWrongPageSizeInTheHeaderLosesNothing(pageSize: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let original = try history(at: path)
        try Damage.write([UInt8(pageSize >> 8), UInt8(pageSize & 0xFF)], at: 16, in: path)

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        #expect(try Damage.expectSound(report, original: original) == original.map(\.sequence))
        #expect(report.headerCorrection?.pageSize == Damage.pageSize)
        #expect(report.headerCorrection?.headerPageSize == (pageSize == 1 ? 65_536 : pageSize))
        #expect(report.stock.allSatisfy { $0.source == .stockTable })
    }

    /// Rows that SQLite reads without complaint but that no store of this version
    /// writes: a column of the wrong type or out of range, text that is not UTF-8, an
    /// event that disagrees with its columns or with its digest. Each is counted and left out; nothing
    /// stops the run, and the new store reads back whole.
    @Test func unsoundRowsAreCountedAndNeverWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let original = try history(at: path)
        let id = try #require(original.first?.id.description)
        do {
            let store = try SQLiteStore(path: path)
            try store.setCursor(named: "sound", to: 10)
            try store.recordDeadLetter(
                DeadLetter(subscriber: "sound", sequence: 1, eventID: try #require(original.first?.id), attempts: 3, lastError: "410", recordedAt: 1))
        }
        // Through SQLite, and checkpointed into the file when it closes: the page reader
        // reads the file, not its write-ahead log.
        try RawDatabase(path).execute(
            """
            UPDATE journal SET change_id = id WHERE sequence = 3;
            UPDATE journal SET time = time + 1 WHERE sequence = 4;
            UPDATE journal SET type = CAST(X'6A75696365FF' AS TEXT) WHERE sequence = 5;
            UPDATE journal SET event = CAST(substr(CAST(event AS BLOB), 1, 30) || X'FF' || substr(CAST(event AS BLOB), 32) AS TEXT) WHERE sequence = 6;
            UPDATE journal SET event = replace(event, '"from":', '"from" :') WHERE sequence = 7;
            UPDATE journal SET event = replace(event, '"source":"/juice-maker"', '"source":"/juice-makes"') WHERE sequence = 8;
            UPDATE journal SET digest = NULL WHERE sequence = 9;
            INSERT INTO cursors (subscriber, sequence) VALUES ('negative', -1), ('far', 9007199254740993), ('text', 'three');
            INSERT INTO dead_letters (subscriber, sequence, event_id, attempts, last_error, recorded_at)
                VALUES ('text', 'abc', '\(id)', 1, 'x', 1), ('blob', 2, '\(id)', 1, 'x', X'00'), ('wrong-event', 1, '\(original[1].id)', 1, 'x', 1);
            INSERT INTO retry_states (subscriber, sequence, attempts, next_attempt_at, last_error, disabled) VALUES ('odd', 2, 1, 1, 'x', 7);
            """)

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        let saved = try Damage.expectSound(report, original: original)
        // Row 8 is a valid event that agrees with its columns: only its digest tells.
        // Row 9 has no digest (as rows written before the column): judged without it.
        #expect(Set(original.map(\.sequence)).subtracting(saved) == [3, 4, 5, 6, 7, 8])
        #expect(report.unreadableRows == ["journal": 6, "cursors": 3, "dead_letters": 3, "retry_states": 1], "\(report.unreadableRows)")
        let recovered = try SQLiteStore(path: report.path)
        #expect(try recovered.cursors() == ["sound": 10])
        #expect(try recovered.deadLetters(for: nil).map(\.subscriber) == ["sound"])
        #expect(try recovered.retryState(for: "odd") == nil)
    }

    /// A store of schema 5 (no digest column, no recoveries table) whose last commits
    /// are still in its write-ahead log, as a killed juice of that version leaves it:
    /// SQLite reads the log, so every event is saved, none counted as damaged.
    @Test func aStoreOfTheLastSchemaIsReadThroughItsLog() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let original = try history(at: path, changes: 40)
        try RawDatabase(path).execute(
            """
            ALTER TABLE journal DROP COLUMN digest; DROP TABLE recoveries; DROP TABLE lost_events;
            PRAGMA user_version = 5;
            """)
        let open = try RawDatabase(path)
        try open.execute("PRAGMA wal_autocheckpoint = 0; PRAGMA journal_mode = WAL; DELETE FROM journal WHERE sequence > 50")
        let kept = original.filter { $0.sequence <= 50 }
        #expect(Damage.size(of: path + "-wal") ?? 0 > 0)

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        #expect(report.unreadableRows.isEmpty, "\(report.unreadableRows)")
        #expect(try SQLiteStore(path: report.path).events(after: 0, limit: .max) == kept)
        withExtendedLifetime(open) {}
    }

    /// A journal row at the largest sequence an integer holds: an order on that store
    /// is refused with a store error (no trap), and recovery leaves the row behind and
    /// numbers on from the last sound one.
    @Test func aSequenceAtTheLimitIsRefusedNotTrapped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let original = try history(at: path, changes: 10)
        let copy = try #require(original.last)
        let crafted = EventEnvelope(
            sequence: .max, id: EventID(high: UInt64.max, low: 1), time: copy.time, source: copy.source, changeID: copy.changeID, event: copy.event)
        try RawDatabase(path).execute(
            "INSERT INTO journal (sequence, id, time, type, change_id, event) SELECT \(Int64.max), '\(crafted.id)', time, type, change_id, '\(CloudEventFormat.encode(crafted))' FROM journal WHERE sequence = \(copy.sequence)"
        )
        let maker = try JuiceMaker(store: SQLiteStore(path: path))
        do {
            try maker.make(.banana)
            Issue.record("an order was numbered after \(Int64.max)")
        } catch {
            guard case let .store(failure) = error else { throw error }
            #expect(failure.reason == .sequencesExhausted(last: .max), "\(failure)")
        }

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        #expect(try Damage.expectSound(report, original: original) == original.map(\.sequence))
        #expect(report.unreadableRows == ["journal": 1])
        let recovered = try SQLiteStore(path: report.path)
        try JuiceMaker(store: recovered).make(.banana)
        #expect(try recovered.lastSequence() > copy.sequence)
    }

    /// The leaf holding a row with a long overflow chain, the chain made to loop, and
    /// that leaf copied over every other leaf of the journal: each copy points into
    /// the same chain. Each overflow page is followed once, so the pages read stay a
    /// small multiple of the file's (it was copies × pages before).
    @Test func aLoopingChainSharedByManyCopiesIsFollowedOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        _ = try history(at: path, changes: 300)
        let source = "/juice-maker/" + String(repeating: "0123456789", count: 6_000)
        try JuiceMaker(store: SQLiteStore(path: path), source: source).make(.banana)
        let raw = try RawDatabase(path, readOnly: true)
        let chain = try raw.rows("SELECT pageno, path FROM dbstat WHERE name = 'journal' AND pagetype = 'overflow' ORDER BY path")
        try #require(chain.count > 10, "no dbstat, or no overflow chain")
        // An overflow page's path is its cell's ("/00f/005+000001"): the leaf's is "/00f/".
        let cellPath = try #require(chain.first?[1].split(separator: "+").first)
        let slash = try #require(cellPath.lastIndex(of: "/"))
        let leafPath = String(cellPath[...slash])
        let leaf = try #require(Int(try raw.value("SELECT pageno FROM dbstat WHERE path = '\(leafPath)'")))
        let leaves = try raw.rows("SELECT pageno FROM dbstat WHERE name = 'journal' AND pagetype = 'leaf'").compactMap { Int($0[0]) }
        let first = try #require(UInt32(chain[0][0]))
        let lastRow = try #require(chain.last)
        let last = try #require(Int(lastRow[0]))
        try Damage.write(
            [UInt8(first >> 24), UInt8(first >> 16 & 0xFF), UInt8(first >> 8 & 0xFF), UInt8(first & 0xFF)], at: (last - 1) * Damage.pageSize, in: path
        )
        let bytes = try #require(contents(of: path))
        let leafBytes = Array(bytes[(leaf - 1) * Damage.pageSize..<leaf * Damage.pageSize])
        for other in leaves where other != leaf { try Damage.write(leafBytes, at: (other - 1) * Damage.pageSize, in: path) }

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        let pages = Int(try #require(Damage.size(of: path))) / Damage.pageSize
        #expect(report.pagesRead <= 4 * pages, "\(report.pagesRead) pages read of a file of \(pages)")
        #expect(try SQLiteStore(path: report.path).check() == .ok)
    }
}

extension Damage {
    /// Writes `bytes` at `offset` of the file at `path`, in place.
    static func write(_ bytes: [UInt8], at offset: Int, in path: String) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
        try handle.synchronize()
        try handle.close()
    }
}
