import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// Files the store must refuse: each gives a typed error naming the path, and the
/// file's bytes are exactly as they were.
@Suite(.tags(.unit), .offPool) struct BadFileTests {
    /// Opens `path`, expects `kind`, and checks the message and the bytes.
    private func expectRefused(_ path: String, as kind: StoreError.Kind, sourceLocation: SourceLocation = #_sourceLocation) {
        let before = contents(of: path)
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("opened \(path) without an error", sourceLocation: sourceLocation)
        } catch {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
            #expect(error.path == path, sourceLocation: sourceLocation)
            #expect(error.description.contains(path), "\(error)", sourceLocation: sourceLocation)
        }
        #expect(contents(of: path) == before, "the file changed", sourceLocation: sourceLocation)
    }

    /// A store with a few orders in it, closed.
    private func makeStore(_ path: String) throws {
        let maker = try JuiceMaker(store: SQLiteStore(path: path))
        for juice in [Juice.mangoKiwi, .banana, .kiwi] { try maker.make(juice) }
    }

    @Test func aTruncatedStoreIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try makeStore(path)
        let whole = try #require(contents(of: path))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "closing should have checkpointed")
        for length in [whole.count / 2, 4096 + 100, 60] {
            try whole.prefix(length).write(to: URL(fileURLWithPath: path))
            expectRefused(path, as: .corrupt)
        }
    }

    @Test func randomBytesAreCorrupt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: path))
        expectRefused(path, as: .corrupt)
    }

    @Test func anotherApplicationsDatabaseIsForeign() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (name, applicationID) in [("plain.db", 0), ("other.db", 0x1234_5678)] {
            let path = directory.file(name)
            do {
                let other = try RawDatabase(path)
                try other.execute("PRAGMA application_id = \(applicationID); CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('keep me')")
            }
            expectRefused(path, as: .foreign)
        }
    }

    /// A database without tables (nothing but its header page, as SQLite writes one when
    /// a store is being created): opened to be written it becomes a store, as an empty
    /// file does; for checking, backing up and recovering it is no store, and stays as it is.
    @Test func aDatabaseWithoutTablesIsTakenAsNewOnlyToBeWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try RawDatabase(path).execute("PRAGMA auto_vacuum = INCREMENTAL; VACUUM")
        let header = try #require(contents(of: path))
        #expect(header.count == 4096)
        #expect(throws: StoreError.self) { try SQLiteStore.requireExisting(at: path) }
        #expect(throws: StoreError.self) { try SQLiteStore.recover(from: path, to: directory.file("recovered.db")) }
        #expect(contents(of: path) == header, "the file changed")
        #expect(!FileManager.default.fileExists(atPath: directory.file("recovered.db")))
        var readOnly = SQLiteStore.Options()
        readOnly.access = .readOnly
        #expect(throws: StoreError.self) { try SQLiteStore(path: path, options: readOnly) }
        #expect(contents(of: path) == header, "the file changed")
        let store = try SQLiteStore(path: path)
        #expect(try store.lastSequence() == 0)
        try JuiceMaker(store: store).make(.banana)
        #expect(try store.lastSequence() == 2)
    }

    @Test func aStoreFromANewerVersionIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try makeStore(path)
        try RawDatabase(path).execute("PRAGMA user_version = 99")
        expectRefused(path, as: .newerVersion)
    }

    /// The newer version is still in the write-ahead log, so the file's own header
    /// looks current: SQLite's view, not the header, must refuse it.
    @Test func aNewerVersionStillInTheWriteAheadLogIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try makeStore(path)
        let newer = try RawDatabase(path)
        try newer.execute("PRAGMA wal_autocheckpoint = 0; PRAGMA user_version = 99")
        expectRefused(path, as: .newerVersion)
        #expect(try newer.value("PRAGMA user_version") == "99")
    }

    @Test func aDirectoryIsNotAStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            _ = try SQLiteStore(path: directory.path)
            Issue.record("opened a directory")
        } catch {
            #expect(error.kind == .inaccessible)
            #expect(error.description.contains(directory.path))
        }
    }

    @Test(.enabled(if: getuid() != 0, "root ignores file permissions, so an unwritable file cannot be made"))
    func anUnwritableFileIsInaccessible() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try makeStore(path)
        #expect(chmod(path, 0o444) == 0)
        expectRefused(path, as: .inaccessible)
    }

    @Test(.enabled(if: getuid() != 0, "root ignores directory permissions, so an unwritable directory cannot be made"))
    func anUnwritableDirectoryIsInaccessible() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let existing = directory.file("full/juice.db")
        try makeStore(existing)
        #expect(chmod(directory.file("full"), 0o555) == 0)
        expectRefused(existing, as: .inaccessible)
        let fresh = directory.file("full/new.db")
        #expect(throws: StoreError.self) { try SQLiteStore(path: fresh) }
        #expect(!FileManager.default.fileExists(atPath: fresh))
    }
}

/// A process killed while creating a store leaves a partly written file and its
/// rollback journal; the next open finishes the job only when the journal proves the
/// file was empty before.
@Suite(.tags(.unit), .offPool) struct InterruptedCreationTests {
    /// A rollback journal header: magic, 0 records, nonce, the database's size before
    /// the write, sector size, page size; padded to one sector.
    private func journal(originalPages: UInt32) -> Data {
        var bytes: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
        for field: UInt32 in [0, 0x1234_5678, originalPages, 512, 4096] {
            bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: field >> $0) }
        }
        return Data(bytes + [UInt8](repeating: 0, count: 512 - bytes.count))
    }

    @Test func aCreationKilledHalfWayIsRolledBackAndRedone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Data(repeating: 0xAB, count: 3000).write(to: URL(fileURLWithPath: path))
        try journal(originalPages: 0).write(to: URL(fileURLWithPath: path + "-journal"))
        let store = try SQLiteStore(path: path)
        #expect(try store.stock() == Stock(repeating: Stock.defaultInitialQuantity))
        #expect(try store.lastSequence() == 0)
    }

    @Test func aJournalOfAFileThatHadDataDoesNotMakeItOurs() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Data(repeating: 0xAB, count: 3000).write(to: URL(fileURLWithPath: path))
        try journal(originalPages: 5).write(to: URL(fileURLWithPath: path + "-journal"))
        let before = contents(of: path)
        #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
        #expect(contents(of: path) == before)
        #expect(contents(of: path + "-journal") == journal(originalPages: 5))
    }
}
