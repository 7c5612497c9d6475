import Foundation
import JuiceMakerCore
import SQLiteStore
import JuiceTestSupport
import Testing

/// The store-level operations (`check`, `backup`, `recover`), the periodic check,
/// and read-only access, on real files.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct StoreOperationsTests {
    private func order(_ store: SQLiteStore) -> Bool {
        (try? JuiceMaker(store: store).make(.banana)) != nil
    }

    @Test func checkFindsNothingInASoundStoreAndListsWhatIsWrongInADamagedOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path)
        let store = try SQLiteStore(path: path)
        #expect(try store.check() == .ok)
        #expect(!store.isMarkedDamaged)
        try Damage.flip(path, page: Damage.firstJournalLeaf(of: path))
        guard case let .damaged(problems, _) = try store.check(limit: 3) else {
            Issue.record("check found nothing in a damaged file")
            return
        }
        #expect(!problems.isEmpty && problems.count <= 3, "\(problems)")
        #expect(store.isMarkedDamaged)
        #expect(!order(store))
    }

    @Test func aBackupIsTakenWhileAnotherProcessWritesAndNeverOverwrites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path, changes: 200)
        let store = try SQLiteStore(path: path)
        let before = try store.lastSequence()
        let writer = try Probe.start(["orders", "--store", path, "--count", "400", "--durability", "normal"], in: directory, name: "writer")
        let target = directory.file("copy.db")
        let result = try store.backup(to: target)
        #expect(writer.finish() == 0, "\(writer.stderr)")
        #expect(result.pages > 1)
        #expect(Damage.mode(of: target) == 0o600)
        let copy = try SQLiteStore(path: target)
        #expect(try copy.check() == .ok)
        #expect(try copy.lastSequence() >= before)
        // Probe events have another initial stock history; the copy's own journal is whole.
        #expect(try StoreInvariants(store: copy).contiguous == [])

        let bytes = contents(of: target)
        do {
            _ = try store.backup(to: target)
            Issue.record("a backup overwrote an existing file")
        } catch {
            guard case .targetExists = error.reason else { throw error }
        }
        #expect(contents(of: target) == bytes)
    }

    @Test func recoverySavesEveryReadableRowAndSaysWhatItSkipped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path, changes: 150)
        let (all, stock) = try {
            let store = try SQLiteStore(path: path)
            try store.setCursor(named: "webhook", to: 17)
            return (try store.events(after: 0, limit: .max), try store.stock())
        }()
        let page = Damage.firstJournalLeaf(of: path)
        try Damage.flip(path, page: page)

        let target = directory.file("recovered.db")
        let report = try SQLiteStore.recover(from: path, to: target)
        #expect(report.lastSequence == all.last?.sequence)
        #expect(report.events + report.skippedEvents == all.count)
        #expect(report.skippedEvents > 0 && report.skippedEvents < 40, "one page's rows, not more: \(report.skippedEvents)")
        #expect(report.skippedSequences.first?.lowerBound == 1, "the first leaf holds the first events: \(report.skippedSequences)")
        #expect(report.stock.map(\.source) == Array(repeating: .stockTable, count: Fruit.allCases.count))
        #expect(report.cursors == 1)
        #expect(Damage.mode(of: target) == 0o600)

        let recovered = try SQLiteStore(path: target)
        #expect(try recovered.check() == .ok)
        #expect(try recovered.stock() == stock)
        #expect(try recovered.cursor(named: "webhook") == 17)
        let saved = try recovered.events(after: 0, limit: .max)
        #expect(saved.count == report.events)
        let skipped = Set(report.skippedSequences.flatMap { Array($0) })
        #expect(saved == all.filter { !skipped.contains($0.sequence) }, "every saved event is the original, byte for byte")
        // The recovered store goes on from where the old one ended.
        try JuiceMaker(store: recovered).make(.banana)
        #expect(try recovered.lastSequence() > report.lastSequence)
    }

    /// The stock table's page is damaged: each fruit's quantity comes from the last
    /// `stockChanged` saved from the journal, and a fruit that never changed is 0
    /// and said to be missing.
    @Test func aDamagedStockTableIsRebuiltFromTheJournal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path)
        let stock = try SQLiteStore(path: path).stock()
        let raw = try RawDatabase(path, readOnly: true)
        let page = try #require(Int(try raw.value("SELECT rootpage FROM sqlite_schema WHERE name = 'stock'")))
        try Damage.flip(path, page: page)

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        #expect(report.incompleteTables == ["stock"])
        #expect(report.skippedEvents == 0)
        for entry in report.stock {
            switch entry.fruit {
            case .banana, .kiwi, .mango:
                guard case .journal = entry.source else { Issue.record("\(entry)"); continue }
                #expect(entry.quantity == stock[entry.fruit], "\(entry)")
            case .strawberry, .pineapple:
                #expect(entry.source == .missing && entry.quantity == 0, "\(entry)")
            }
        }
    }

    @Test func movingTheRecoveredFileIntoPlaceClearsTheMark() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path)
        try Damage.flip(path, page: Damage.firstJournalLeaf(of: path))
        let target = directory.file("recovered.db")
        do {
            let damaged = try SQLiteStore(path: path)
            #expect(damaged.isMarkedDamaged)
            _ = try damaged.recover(to: target)
        }
        #expect(rename(target, path) == 0)
        let store = try SQLiteStore(path: path)
        #expect(!store.isMarkedDamaged)
        #expect(order(store), "the recovered file in place refused an order")
        #expect(!FileManager.default.fileExists(atPath: path + ".damaged"))
    }

    /// Damage nothing reads: only the periodic check can find it, and it does, on a
    /// thread of its own, after the commit that crosses a multiple of `checkEvery`.
    @Test func thePeriodicCheckFindsDamageNoQueryTouches() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path)
        let page = Damage.firstJournalLeaf(of: path)
        let store = try SQLiteStore(path: path, options: .init(checkEvery: 20))
        try Damage.flip(path, page: page)
        // Two events an order: 40 orders cross a multiple of the interval (20, or half
        // the journal's size rounded down to a power of two: 64 here) at least once;
        // the later ones may already be refused.
        var taken = 0
        for _ in 0..<40 where order(store) { taken += 1 }
        #expect(taken >= 1, "the first order was refused before any check ran")
        // The check's thread says nothing to the test: its mark is looked for.
        #expect(eventuallyOnThisThread(within: .seconds(30)) { store.isMarkedDamaged }, "the periodic check did not find the damage")
        #expect(!order(store))
    }

    /// What opening costs: after a clean close, a change that keeps the file's size
    /// and time is not looked for (the periodic check or a query finds it later).
    @Test func aCleanCloseLetsTheNextOpenSkipTheCheck() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try Damage.unseenDamage(at: path)
        #expect(!store.isMarkedDamaged)
        #expect(order(store))
    }

    @Test func aStoreOpenedReadOnlyAnswersQueriesAndRefusesChanges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path, changes: 30)
        // Half the journal folded into the report's projection, half not yet.
        _ = try SQLiteStore(path: path).report(firstHour: 0, lastHour: 1 << 40)
        try Damage.makeHistory(at: path, changes: 30)
        let bytes = contents(of: path)

        let readOnly = try SQLiteStore(path: path, options: .init(access: .readOnly))
        #expect(readOnly.isReadOnly && readOnly.readOnlyCause == .requested)
        let folded = try readOnly.report(firstHour: 0, lastHour: 1 << 40)
        #expect(try readOnly.stock() == folded.stock)
        do {
            try JuiceMaker(store: readOnly).make(.banana)
            Issue.record("a read-only store took an order")
        } catch {
            guard case let .store(failure) = error, case .storeReadOnly(.requested) = failure.reason else {
                Issue.record("\(error)")
                return
            }
        }
        #expect(throws: StoreError.self) { try readOnly.setCursor(named: "webhook", to: 1) }
        #expect(contents(of: path) == bytes, "a read-only store wrote to its file")

        // The same figures as a store that folds them into its projection.
        let written = try SQLiteStore(path: path).report(firstHour: 0, lastHour: 1 << 40)
        func key(_ row: ReportSnapshot.Row) -> String { "\(row.hour) \(row.kind) \(row.item) \(row.fruit) \(row.events) \(row.amount)" }
        #expect(Set(folded.rows.map(key)) == Set(written.rows.map(key)))
        #expect(folded.throughSequence == written.throughSequence)
    }

    @Test func aReadOnlyStoreOfAnOlderVersionSaysItMustBeMigratedFirst() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        _ = try SQLiteStore(path: path)
        try RawDatabase(path).execute("PRAGMA user_version = 3")
        do {
            _ = try SQLiteStore(path: path, options: .init(access: .readOnly))
            Issue.record("opened an old store read-only")
        } catch {
            #expect(error.reason == .migrationNeedsWriting(found: 3, supported: 7), "\(error)")
        }
    }
}

/// The `sqlite3` shell's `.recover`, where it works, against `recover(to:)`.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ShellRecoverComparisonTests {
    /// The `sqlite3` shell on PATH, if any.
    static let shell: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/sqlite3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs `shell arguments…` with `input` on stdin; its stdout and exit status.
    @discardableResult
    static func run(_ arguments: [String], input: Data? = nil) throws -> (out: Data, status: Int32) {
        let result = try runProgram(shell ?? "sqlite3", arguments, input: input.map { Array($0) })
        return (Data(result.output), result.status)
    }

    /// Whether that shell's `.recover` can work: it reads pages through the
    /// `sqlite_dbpage` table, which Debian's libsqlite3 (3.40) is built without, and
    /// then saves nothing at all.
    static let recoverWorks: Bool = {
        guard shell != nil, let result = try? run([":memory:", "SELECT count(*) FROM sqlite_dbpage"]) else { return false }
        return result.status == 0
    }()

    @Test(
        .enabled(if: shell != nil, "no sqlite3 shell on PATH"),
        .enabled(if: recoverWorks, "this sqlite3 shell's .recover needs sqlite_dbpage, which its libsqlite3 is built without"))
    func recoverySavesEveryEventTheShellsRecoverSaves() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        try Damage.makeHistory(at: path, changes: 150)
        try Damage.flip(path, page: Damage.firstJournalLeaf(of: path))

        let sql = try Self.run([path, ".recover"]).out
        let shellCopy = directory.file("shell.db")
        try Self.run([shellCopy], input: sql)
        let theirs = Set(try RawDatabase(shellCopy).rows("SELECT sequence FROM journal").map { $0[0] })

        let report = try SQLiteStore.recover(from: path, to: directory.file("ours.db"))
        let ours = Set(try RawDatabase(directory.file("ours.db")).rows("SELECT sequence FROM journal").map { $0[0] })
        #expect(ours.count == report.events)
        #expect(theirs.subtracting(ours).isEmpty, "the shell saved events recovery did not: \(theirs.subtracting(ours).sorted())")
    }
}
