import Foundation
import JuiceMakerCore
import SQLiteStore
import JuiceTestSupport
import Testing

/// Issue 11, "nothing lost, nothing damaged": a damaged store is never written to.
/// Damage is looked for when a store opens after anything but a clean close, and seen
/// whenever SQLite reports it; once seen, it is marked beside the file, and every
/// write, in any process, is refused until a recovered file is moved into place.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct DamagedStoreTests {
    /// Commits an order through `store`, returning the error it was refused with.
    private func refusal(_ store: SQLiteStore) -> StoreError? {
        do {
            try JuiceMaker(store: store).make(.banana)
            return nil
        } catch {
            guard case let .store(failure) = error else { return nil }
            return failure
        }
    }

    @Test func aStoreDamagedWhileClosedIsNotWritten() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path)
        try Damage.flip(path, page: Damage.firstJournalLeaf(of: path))
        let damaged = try #require(contents(of: path))

        let store = try SQLiteStore(path: path)
        let error = try #require(refusal(store), "an order was committed to a damaged file")
        #expect(error.kind == .corrupt, "\(error)")
        #expect(error.description.contains("damaged"), "\(error)")
        #expect(throws: StoreError.self) { try store.setCursor(named: "webhook", to: 1) }
        // Reads that do not touch the damage still work.
        #expect(try store.stock().banana >= 0)
        #expect(contents(of: path) == damaged, "the damaged file was written")
        // The mark is beside the file, user-only, and names the file and the reason.
        let mark = try #require(contents(of: path + ".damaged"), "no mark beside the file")
        #expect(Damage.mode(of: path + ".damaged") == 0o600)
        let text = String(decoding: mark, as: UTF8.self)
        #expect(text.contains("store: \(path)"), "\(text)")
        #expect(text.contains("found: "), "\(text)")
    }

    /// A closed store's lock on its close record can outlive the close for a moment:
    /// a child process between `fork` and `exec` holds a copy of every descriptor the
    /// parent had open. The next opener, kept waiting by that lock, is then alone
    /// with a file that may have changed since; it must not take itself for one of
    /// several users (who would have looked already) and skip the look.
    @Test func aLockThatOutlivesTheCloseDoesNotSkipTheLook() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path)
        try Damage.flip(path, page: Damage.firstJournalLeaf(of: path))
        // The lingering copy: the record, exclusively locked, as the last close left it.
        let lingering = open(path + ".clean", O_RDWR | O_CLOEXEC)
        try #require(lingering >= 0 && flock(lingering, LOCK_EX) == 0)
        // Released once the opener below waits for it: the kernel lists the waiter.
        let released = Thread {
            _ = eventuallyOnThisThread(within: .seconds(60)) { Damage.hasLockWaiter(path + ".clean") }
            close(lingering)
        }
        released.start()
        let store = try SQLiteStore(path: path)
        let error = try #require(refusal(store), "an order was committed to a damaged file")
        #expect(error.kind == .corrupt, "\(error)")
    }

    @Test func damageSeenByAQueryStopsEveryWriterOfTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path)
        let store = try SQLiteStore(path: path)
        // Damaged under an open store: only a read that reaches the page can tell.
        try Damage.flip(path, page: Damage.firstJournalLeaf(of: path))
        #expect(throws: StoreError.self) { try store.events(after: 0, limit: 1000) }
        let error = try #require(refusal(store), "an order was committed after SQLite reported damage")
        #expect(error.kind == .corrupt, "\(error)")
        // Another store object (another process) on the same file refuses too.
        let other = try SQLiteStore(path: path)
        #expect(refusal(other) != nil, "a second opener wrote to the damaged file")
        #expect(FileManager.default.fileExists(atPath: path + ".damaged"))
    }

    /// The cheap clean-close record decides whether opening looks: a writer killed
    /// mid-order leaves none, so the next opener checks the whole file, even when
    /// the damage left its size and time as they were.
    @Test func afterAKilledWriterTheNextOpenLooks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path)
        let process = try Probe.start(["loop", "--store", path, "--seed", "7"], in: directory, name: "loop").process
        // Wait until the loop has committed (its write-ahead log grows) and committed
        // again (the log is written once more), then kill it mid-flight. Watched from
        // outside: opening the store would queue for its lock.
        let wal = path + "-wal"
        #expect(eventuallyOnThisThread(within: .seconds(30), every: .milliseconds(5)) { (Damage.size(of: wal) ?? 0) > 0 })
        let first = Damage.modified(wal)
        #expect(eventuallyOnThisThread(within: .seconds(30), every: .milliseconds(5)) { Damage.modified(wal) != first })
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try Damage.flip(path, page: Damage.firstJournalLeaf(of: path), keepingTime: true)
        let store = try SQLiteStore(path: path)
        #expect(refusal(store) != nil, "opening after a killed writer did not look for damage")
    }

    @Test func storeFilesAreForTheUserOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try SQLiteStore(path: path)
        try JuiceMaker(store: store).make(.banana)
        let lease = try store.takeDeliveryLease(for: "webhook")
        defer { withExtendedLifetime(lease) {} }
        // While the store is open: the file, its write-ahead log and shared memory, the lease.
        for file in [path, path + "-wal", path + "-shm", path + ".lease-webhook"] {
            #expect(Damage.mode(of: file) == 0o600, "\(file) is \(Damage.mode(of: file).map { String($0, radix: 8) } ?? "missing")")
        }
        // Whatever else the store keeps beside its file.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        for name in names where name.hasPrefix("juice.db") {
            #expect(Damage.mode(of: directory.file(name)) == 0o600, "\(name)")
        }
    }
}
