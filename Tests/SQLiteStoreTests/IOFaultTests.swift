import Foundation
import JuiceMakerCore
import SQLiteStore
import JuiceTestSupport
import Testing

/// Issue 34, item 6: I/O faults on the write path, as SQLite tests itself. Each
/// operation (an order, a stock draft applied, a backup, a recovery) is first run
/// through a fault VFS that only counts its writes, syncs and truncates; then once
/// for every one of those calls, on a fresh copy of the same store, with that call
/// failing (and, `persistent`, every one after it: a disk that went away). Every run
/// fails with the store's I/O error or succeeds; either way the store is exactly as
/// before or exactly as after, never between, and the next open (no faults) finds no
/// damage and a journal without gaps. A persistent fault is also a crash: the files
/// as they are on disk when the error comes back are copied and opened as a process
/// started after the crash would.
@Suite(.tags(.unit), .offPool) struct IOFaultTests {
    /// An order (`JuiceMaker.make`), as `juice order` makes it: open, order, close.
    @Test(arguments: Fault.all)
    func anOrder(_ fault: Fault) throws {
        try sweepChange(fault) { maker in try maker.make(.banana) }
    }

    /// A stock draft applied, as the stock screen does: two fruits in one change.
    @Test(arguments: Fault.all)
    func aStockDraftApplied(_ fault: Fault) throws {
        try sweepChange(fault) { maker in
            var draft = try maker.beginEdit()
            try draft.set(.kiwi, to: draft.base.kiwi + 5)
            try draft.set(.mango, to: draft.base.mango - 1)
            try maker.apply(draft)
        }
    }

    /// A process that goes on after a failed write (a screen, `juice deliver`): once
    /// the disk answers again, the same store takes the next order, and the journal
    /// goes on from where the failed change left it, without a gap.
    @Test(arguments: Fault.once)
    func theNextOrderAfterAFault(_ fault: Fault) throws {
        let fixture = try Fixture.history()
        let before = try Fixture.reopen(fixture.store)
        let reference = try Fixture.history()
        try JuiceMaker(store: SQLiteStore(path: reference.store, options: .init(checkEvery: 0))).make(.banana)
        let perOrder = try Fixture.reopen(reference.store).events.count - before.events.count
        let calls = try sweep(fault, fixture: fixture) { run in
            let maker = JuiceMaker(store: try SQLiteStore(path: run.store, options: run.options))
            do {
                try maker.make(.banana)
            } catch {
                // The fault is spent: the next order is written.
                #expect(throws: Never.self, "the order after a failed one") { try maker.make(.banana) }
                throw error
            }
        } judge: { run, error, comment in
            let found = try Fixture.reopen(run.store)
            let added = found.events.count - before.events.count
            #expect(Array(found.events.prefix(before.events.count)) == before.events, comment)
            let expected = error == nil ? [perOrder] : [perOrder, 2 * perOrder]
            #expect(expected.contains(added), "\(added) events added \(comment)")
        }
        #expect(calls > 0 || fault.kind == .truncate, "an order made no \(fault.kind)")
    }

    /// `store backup`: the store is only read; the copy is whole under its name, or
    /// nothing at all is left of it.
    @Test(arguments: Fault.all)
    func aBackup(_ fault: Fault) throws {
        let fixture = try Fixture.history()
        let before = try Fixture.reopen(fixture.store)
        let calls = try sweep(fault, fixture: fixture) { run in
            let store = try SQLiteStore(path: run.store, options: run.options)
            _ = try store.backup(to: run.file("backup.db"))
        } judge: { run, error, comment in
            let left = run.files(startingWith: "backup.db")
            if error == nil {
                #expect(Set(left).isSubset(of: Fixture.companions(of: "backup.db")) && left.contains("backup.db"), "\(left) \(comment)")
                let copy = try Fixture.reopen(run.file("backup.db"))
                #expect(copy == before, "the copy is not the store \(comment)")
            } else {
                #expect(left.isEmpty, "a failed backup left \(left) \(comment)")
            }
            let store = try Fixture.reopen(run.store)
            #expect(store == before, "the store changed \(comment)")
        }
        #expect(calls > 0 || fault.kind == .truncate, "a backup made no \(fault.kind)")
    }

    /// `store recover` of a damaged store: the damaged file is only read; the new
    /// store is whole under its name, or nothing at all is left of it.
    @Test(arguments: Fault.all)
    func aRecovery(_ fault: Fault) throws {
        let fixture = try Fixture.history()
        try Damage.flip(fixture.store, page: Damage.firstJournalLeaf(of: fixture.store))
        let damaged = try #require(contents(of: fixture.store))
        let reference = fixture.file("reference.db")
        let report = try SQLiteStore.recover(from: fixture.store, to: reference)
        #expect(report.skippedEvents > 0, "the damage cost no event: nothing to recover")
        let recovered = try Fixture.reopen(reference, holdsInvariants: false)
        for suffix in ["", "-wal", "-shm", ".clean"] { unlink(reference + suffix) }
        let calls = try sweep(fault, fixture: fixture) { run in
            _ = try SQLiteStore.recover(from: run.store, to: run.file("recovered.db"), vfs: run.vfs)
        } judge: { run, error, comment in
            let left = run.files(startingWith: "recovered.db")
            if error == nil {
                // SQLite's -wal and -shm go with the new store when its last checkpoint failed.
                #expect(Set(left).isSubset(of: Fixture.companions(of: "recovered.db")) && left.contains("recovered.db"), "\(left) \(comment)")
                let saved = try Fixture.reopen(run.file("recovered.db"), holdsInvariants: false)
                #expect(saved == recovered, "the new store is not what a recovery without faults saves \(comment)")
            } else {
                #expect(left.isEmpty, "a failed recovery left \(left) \(comment)")
            }
            #expect(contents(of: run.store) == damaged, "the damaged store was written \(comment)")
        }
        #expect(calls > 0 || fault.kind == .truncate, "a recovery made no \(fault.kind)")
    }

    // MARK: The sweep

    /// `change` through a `JuiceMaker` on a store opened with the fault VFS, as one
    /// command: every run ends with the change whole or not made at all, and a
    /// persistent fault's crash image the same.
    private func sweepChange(_ fault: Fault, _ change: (JuiceMaker) throws -> Void) throws {
        let fixture = try Fixture.history()
        let before = try Fixture.reopen(fixture.store)
        // What the change leaves, made without the fault VFS (its ids and times are its own).
        let reference = try Fixture.history()
        try change(JuiceMaker(store: SQLiteStore(path: reference.store, options: .init(checkEvery: 0))))
        let after = try Fixture.reopen(reference.store)
        #expect(after.events.count > before.events.count, "the change made no event")

        /// Exactly as before, or exactly as after: `before`'s rows unchanged and the
        /// change's whole, or none of it.
        func expectWholeOrNothing(_ found: StoreContents, failed: Bool, _ comment: Comment) {
            let asBefore = found == before
            let asAfter = found.sameChanges(as: after) && Array(found.events.prefix(before.events.count)) == before.events
            #expect(asAfter || (failed && asBefore), "the store is neither as before nor as after \(comment)")
        }

        let calls = try sweep(fault, fixture: fixture) { run in
            let store = try SQLiteStore(path: run.store, options: run.options)
            do {
                try change(JuiceMaker(store: store))
            } catch {
                if fault.persistent { run.dieHere() }
                throw error
            }
            withExtendedLifetime(store) {}
        } judge: { run, error, comment in
            let found = try Fixture.reopen(run.store)
            expectWholeOrNothing(found, failed: error != nil, comment)
            if let crash = run.crashImage {
                expectWholeOrNothing(try Fixture.reopen(crash), failed: true, "\(comment) (after a crash)")
            }
        }
        #expect(calls > 0 || fault.kind == .truncate, "the change made no \(fault.kind)")
    }

    /// Runs `operation` on a fresh copy of `fixture` once to count its calls of the
    /// fault's kind, then once for each of them with that call failing; `judge` looks at
    /// each faulted run (its error, nil when it succeeded). The number of calls.
    private func sweep(
        _ fault: Fault, fixture: Fixture,
        operation: (Run) throws -> Void,
        judge: (Run, (any Error)?, Comment) throws -> Void
    ) throws -> Int {
        let vfs = try FaultVFS()
        defer { vfs.unregister() }
        let counting = try Run(fixture, number: 0, vfs: vfs.name)
        vfs.disarm()
        try operation(counting)
        let calls = vfs.count(fault.kind)
        counting.remove()
        for call in stride(from: 1, through: calls, by: 1) {
            let run = try Run(fixture, number: call, vfs: vfs.name)
            defer { run.remove() }
            let comment: Comment = "(\(fault.testDescription): call \(call) of \(calls))"
            vfs.arm(fault.kind, at: call, persistent: fault.persistent, torn: fault.torn)
            var failure: (any Error)?
            do { try operation(run) } catch { failure = error }
            #expect(vfs.failures >= 1, "the call armed was never made \(comment)")
            vfs.disarm()
            if let failure { Fixture.expectIOError(failure, comment) }
            try judge(run, failure, comment)
        }
        return calls
    }
}

/// What a store holds, as the fault tests compare it.
struct StoreContents: Equatable {
    let stock: Stock
    let events: [EventEnvelope]
    let cursors: [String: Int64]

    /// The same stock, cursors, and events of the same sequences saying the same
    /// (ids and times are each run's own).
    func sameChanges(as other: StoreContents) -> Bool {
        stock == other.stock && cursors == other.cursors && events.map(\.sequence) == other.events.map(\.sequence)
            && events.map(\.event) == other.events.map(\.event)
    }
}

/// A store closed cleanly in a directory of its own, copied for each run.
struct Fixture {
    let directory: TemporaryDirectory
    var store: String { directory.file("juice.db") }

    func file(_ name: String) -> String { directory.file(name) }

    /// A store's file and what is kept beside it: SQLite's -wal and -shm, the close record.
    static func companions(of name: String) -> Set<String> {
        [name, name + "-wal", name + "-shm", name + ".clean"]
    }

    /// Orders and restocks (Damage's history), and two delivery cursors.
    static func history() throws -> Fixture {
        let fixture = Fixture(directory: try TemporaryDirectory(prefix: "juice-faults-"))
        try Damage.makeHistory(at: fixture.store, changes: 12)
        let store = try SQLiteStore(path: fixture.store, options: .init(checkEvery: 0))
        try store.setCursor(named: "webhook", to: 7)
        try store.setCursor(named: "logger", to: 20)
        return fixture
    }

    /// Opens the store at `path` without faults, as the next command would, and reads
    /// it; an issue for any damage: SQLite's integrity check, the damage mark, and
    /// (`holdsInvariants`) a journal without gaps that the stock agrees with.
    static func reopen(_ path: String, holdsInvariants: Bool = true) throws -> StoreContents {
        let store = try SQLiteStore(path: path, options: .init(checkEvery: 0))
        #expect(try store.check() == .ok, "damage in \(path)")
        #expect(!store.isMarkedDamaged, "\(path) is marked damaged")
        if holdsInvariants {
            let violations = try StoreInvariants(store: store).violations
            #expect(violations.isEmpty, "\(path): \(violations)")
        }
        return StoreContents(stock: try store.stock(), events: try store.events(after: 0, limit: .max), cursors: try store.cursors())
    }

    /// `error` is the store's I/O error (exit 74 in the CLI), in one line.
    static func expectIOError(_ error: any Error, _ comment: Comment) {
        let failure: StoreError? =
            switch error {
            case let failure as StoreError: failure
            case let maker as JuiceMakerError: if case let .store(failure) = maker { failure } else { nil }
            default: nil
            }
        guard let failure else {
            Issue.record("not a store error: \(error) \(comment)")
            return
        }
        #expect(failure.kind == .io, "\(failure) \(comment)")
        #expect(!failure.description.contains("\n"), "\(failure) \(comment)")
    }
}

/// One run of an operation: a copy of the fixture's directory, and the fault VFS's name.
struct Run {
    let path: String
    let vfs: String

    init(_ fixture: Fixture, number: Int, vfs: String) throws {
        path = fixture.directory.path + "/run-\(number)"
        self.vfs = vfs
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        for name in ["juice.db", "juice.db.clean"] where FileManager.default.fileExists(atPath: fixture.file(name)) {
            try FileManager.default.copyItem(atPath: fixture.file(name), toPath: file(name))
        }
    }

    var store: String { file("juice.db") }
    var options: SQLiteStore.Options {
        var options = SQLiteStore.Options(checkEvery: 0)
        options.vfs = vfs
        return options
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// The names in the run's directory that start with `prefix`, sorted.
    func files(startingWith prefix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// The process dies here: the store's files as they are on disk now (not the
    /// -shm, which SQLite rebuilds from the write-ahead log; not the close record,
    /// which a crash leaves empty) are copied aside, as `crashImage`.
    func dieHere() {
        let crash = path + "/crash"
        guard (try? FileManager.default.createDirectory(atPath: crash, withIntermediateDirectories: false)) != nil else { return }
        for suffix in ["", "-wal", "-journal"] where FileManager.default.fileExists(atPath: store + suffix) {
            do {
                try FileManager.default.copyItem(atPath: store + suffix, toPath: crash + "/juice.db" + suffix)
            } catch {
                Issue.record("could not copy \(store + suffix): \(error)")
            }
        }
    }

    /// The store copied by `dieHere`, or nil.
    var crashImage: String? {
        let image = path + "/crash/juice.db"
        return FileManager.default.fileExists(atPath: image) ? image : nil
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
