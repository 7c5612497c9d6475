import Foundation
import JuiceMakerCore
import SQLiteStore
import JuiceTestSupport
import Testing

/// A backup never copies damage.
@Suite(.tags(.unit), .offPool) struct BackupOfDamageTests {
    /// A backup to `target` is refused as the store's damage, and leaves no file.
    private func expectRefused(_ store: SQLiteStore, target: String) throws {
        do {
            _ = try store.backup(to: target)
            Issue.record("a damaged store was backed up")
        } catch {
            guard case .markedDamaged = error.reason else { throw error }
        }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func aStoreMarkedDamagedIsNotBackedUp() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path)
        try Damage.flip(path, page: Damage.firstJournalLeaf(of: path))
        let store = try SQLiteStore(path: path)
        #expect(store.isMarkedDamaged)
        try expectRefused(store, target: directory.file("copy.db"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("copy.db") } == [])
    }

    /// Damage nothing has seen yet (a clean close, the size and time kept): the copy's
    /// check finds it, the copy is removed and the store marked.
    @Test func damageNotYetSeenIsFoundInTheCopy() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try Damage.unseenDamage(at: path)
        #expect(!store.isMarkedDamaged)
        try expectRefused(store, target: directory.file("copy.db"))
        #expect(store.isMarkedDamaged)
    }
}

/// An empty file at the store's path: no store yet.
@Suite(.tags(.unit), .offPool) struct EmptyStoreFileTests {
    @Test func recoveringAnEmptyFileSaysItIsEmpty() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        do {
            _ = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
            Issue.record("an empty file was recovered")
        } catch {
            #expect(error.reason == .emptyFile, "\(error)")
        }
        #expect(throws: StoreError(.emptyFile, path: path)) { try SQLiteStore.requireExisting(at: path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["juice.db"])
    }

    /// Made a store, the file gets a new store's mode, and so do its -wal and -shm.
    @Test func anEmptyFileMadeAStoreIsForTheUserOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        let store = try SQLiteStore(path: path)
        try JuiceMaker(store: store).make(.banana)
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(Damage.mode(of: file) == 0o600, "\(file) is \(Damage.mode(of: file).map { String($0, radix: 8) } ?? "missing")")
        }
    }
}

/// A full disk while SQLite grows the -shm file is the disk being full, not an I/O
/// error with a code. Needs a small file system of its own: a tmpfs, mounted by root.
@Suite(.tags(.unit), .offPool) struct SharedMemoryDiskFullTests {
    static let canMount: Bool = {
        guard getuid() == 0, let probe = try? TemporaryDirectory() else { return false }
        defer { probe.remove() }
        guard mount("tmpfs", probe.path, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(probe.path)
        return true
    }()

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"))
    func aFullDiskWhileTheSharedMemoryGrowsIsADiskFull() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let original = directory.file("juice.db")
        try Damage.makeHistory(at: original, changes: 20)
        let disk = directory.file("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        try #require(mount("tmpfs", disk, "tmpfs", 0, "size=1m") == 0)
        defer { umount(disk) }
        let path = disk + "/juice.db"
        try FileManager.default.copyItem(atPath: original, toPath: path)
        _ = try SQLiteStore(path: path).stock()
        // Fill the disk; the store then has no room for its -shm file.
        #expect(FileManager.default.createFile(atPath: disk + "/filler", contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: disk + "/filler"))
        let block = Data(count: 4096)
        while (try? handle.write(contentsOf: block)) != nil {}
        try? handle.close()
        do {
            _ = try SQLiteStore(path: path).stock()
            Issue.record("the store opened on a full disk")
        } catch {
            guard case .diskFull = error.reason else {
                Issue.record("not the disk-full reason: \(error)")
                return
            }
        }
    }
}
