import CSQLite
import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// The store's file as `juice` meets it: damaged, mistyped, read-only.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct StoreSafetyTests {
    /// A store with a few dozen orders in the sandbox, written in this process and closed.
    private func history(_ sandbox: JuiceSandbox, at path: String? = nil) throws {
        let maker = try JuiceMaker(store: SQLiteStore(path: path ?? sandbox.storePath, durability: .normal))
        for step in 0..<40 {
            if step % 4 == 3 { try maker.add(8, of: .banana) } else { try maker.make(.banana) }
        }
    }

    /// XOR of 12 bytes of a journal page: the first page after the tables' root pages
    /// (the issue's repro, 11 × 4096, was that page when the schema had eleven), where
    /// the journal's rows went once its root page filled.
    private func damage(_ path: String) throws {
        var database: OpaquePointer?
        defer { sqlite3_close_v2(database) }
        var statement: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
            sqlite3_prepare_v2(database, "SELECT max(rootpage) FROM sqlite_schema", -1, &statement, nil) == SQLITE_OK,
            sqlite3_step(statement) == SQLITE_ROW
        else {
            sqlite3_finalize(statement)
            throw CocoaError(.fileReadUnknown)
        }
        let offset = UInt64(sqlite3_column_int64(statement, 0)) * 4096
        sqlite3_finalize(statement)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: offset)
        let bytes = try handle.read(upToCount: 12) ?? Data()
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(bytes.map { $0 ^ 0xFF }))
        try handle.close()
    }

    @Test func aDamagedStoreRefusesChangesWithTheWayOutAndStillAnswersQueries() throws {
        let sandbox = try JuiceSandbox()
        try history(sandbox)
        try damage(sandbox.storePath)
        let damaged = sandbox.storeBytes()

        for arguments in [["stock", "add", "kiwi", "1"], ["order", "banana"]] {
            let result = try sandbox.run(arguments)
            #expect(result.status == 74, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("juice store recover --to"), "\(result.stderr)")
            #expect(result.stderr.contains(sandbox.storePath + ".damaged"), "\(result.stderr)")
        }
        #expect(sandbox.storeBytes() == damaged, "the damaged file was written")
        let stock = try sandbox.run(["stock"])
        #expect(stock.status == 0, "\(stock.stderr)")
    }

    @Test func aMistypedStoreDirectoryIsNotCreated() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["--store", "./nope/deeper/x.db", "stock"])
        #expect(result.status == 74, "\(result.stdout)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("the directory \(sandbox.root)/work/nope/deeper does not exist"), "\(result.stderr)")
        #expect(result.stderr.contains("--store"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/work/nope"))
        // The same from the environment.
        let fromEnvironment = try sandbox.run(["stock"], environment: ["JUICE_MAKER_STORE": sandbox.root + "/typo/x.db"])
        #expect(fromEnvironment.status == 74, "\(fromEnvironment.stdout)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root + "/typo"))
    }

    @Test func theDefaultLocationStillCreatesItsDirectories() throws {
        let sandbox = try JuiceSandbox()
        var environment = sandbox.environment
        environment.removeValue(forKey: "JUICE_MAKER_STORE")
        sandbox.environment = environment
        #expect(try sandbox.run(["order", "banana"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.root + "/state/juice-maker/juice.db"))
    }

    @Test func anEmptyStorePathAndADeviceAreRefusedByName() throws {
        let sandbox = try JuiceSandbox()
        let empty = try sandbox.run(["--store", "", "stock"])
        #expect(empty.stderr.contains("empty path"), "\(empty.stderr)")
        #expect(empty.status != 0)
        let device = try sandbox.run(["--store", "/dev/null", "stock"])
        #expect(device.status == 74)
        #expect(device.stderr.contains("not a regular file (a character device)"), "\(device.stderr)")
        let fifo = sandbox.root + "/store.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let named = try sandbox.run(["--store", fifo, "stock"])
        #expect(named.status == 74)
        #expect(named.stderr.contains("not a regular file (a FIFO)"), "\(named.stderr)")
    }

    /// Makes `path` unwritable for this user, root included: the immutable flag for
    /// root (who ignores permission bits), the permission bits otherwise. Returns the
    /// undo.
    private func makeReadOnly(_ path: String, directory: Bool) throws -> () -> Void {
        if getuid() == 0 {
            let set = try runProgram("/usr/bin/chattr", ["+i", path])
            try #require(set.status == 0, "chattr +i \(path) failed: \(set.stderr)")
            return { _ = try? runProgram("/usr/bin/chattr", ["-i", path]) }
        }
        chmod(path, directory ? 0o555 : 0o444)
        return { chmod(path, directory ? 0o700 : 0o600) }
    }

    /// With no subscribers: the default logger would say, on its own line, that it
    /// cannot create its log in a read-only state directory.
    private func expectQueriesWorkAndChangesAreRefused(_ sandbox: JuiceSandbox, store: String) throws {
        let config = try sandbox.write(#"{"subscribers": []}"#, to: "quiet.json")
        let options = ["--config", config, "--store", store]
        for arguments in [["stock"], ["menu"], ["events"], ["report"], ["report", "--json"]] {
            let result = try sandbox.run(options + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let events = try sandbox.run(options + ["events", "--json"])
        #expect(events.stdout.split(separator: "\n").count >= 40, "\(events.stdout)")
        let change = try sandbox.run(options + ["stock", "add", "kiwi", "1"])
        #expect(change.status == 74)
        #expect(change.stderr.contains("the store is read-only: "), "\(change.stderr)")
        #expect(change.stderr.split(separator: "\n").count == 1, "\(change.stderr)")
    }

    @Test(.enabled(if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr")))
    func aReadOnlyStoreFileServesQueries() throws {
        let sandbox = try JuiceSandbox()
        let store = sandbox.root + "/shared/juice.db"
        try FileManager.default.createDirectory(atPath: sandbox.root + "/shared", withIntermediateDirectories: true)
        try history(sandbox, at: store)
        let before = FileManager.default.contents(atPath: store)
        let undo = try makeReadOnly(store, directory: false)
        defer { undo() }
        try expectQueriesWorkAndChangesAreRefused(sandbox, store: store)
        #expect(FileManager.default.contents(atPath: store) == before)
    }

    @Test(.enabled(if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/chattr")))
    func aStoreInAReadOnlyDirectoryServesQueries() throws {
        let sandbox = try JuiceSandbox()
        let directory = sandbox.root + "/shared"
        let store = directory + "/juice.db"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try history(sandbox, at: store)
        let undo = try makeReadOnly(directory, directory: true)
        defer { undo() }
        try expectQueriesWorkAndChangesAreRefused(sandbox, store: store)
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"))
    }

    @Test func checkBackupAndRecoverThenMoveIntoPlace() throws {
        let sandbox = try JuiceSandbox()
        try history(sandbox)
        let check = try sandbox.run(["store", "check"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("ok"), "\(check.stdout)")

        let backup = sandbox.root + "/work/copy.db"
        #expect(try sandbox.run(["store", "backup", "copy.db"]).status == 0)
        var info = stat()
        #expect(stat(backup, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let again = try sandbox.run(["store", "backup", "copy.db"])
        #expect(again.status == 74)
        #expect(again.stderr.contains("already exists"), "\(again.stderr)")

        try damage(sandbox.storePath)
        let damaged = try sandbox.run(["store", "check"])
        #expect(damaged.status == 74)
        #expect(damaged.stderr.split(separator: "\n").count == 1, "\(damaged.stderr)")
        #expect(damaged.stderr.contains("juice store recover --to"), "\(damaged.stderr)")

        let recovered = try sandbox.run(["store", "recover", "--to", "new.db", "--json"])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let report = try #require(try recovered.json() as? [String: Any])
        let saved = try #require(report["events"] as? Int)
        let skipped = try #require(report["skippedEvents"] as? Int)
        #expect(saved > 0 && skipped > 0 && saved + skipped == report["lastSequence"] as? Int, "\(report)")
        #expect(try sandbox.run(["order", "banana"]).status == 74, "still the damaged file in place")

        #expect(rename(sandbox.root + "/work/new.db", sandbox.storePath) == 0)
        let order = try sandbox.run(["order", "banana"])
        #expect(order.status == 0, "\(order.stderr)")
        let events = try sandbox.run(["events", "--json", "--limit", "1000"])
        #expect(events.stdout.split(separator: "\n").count == saved + 2)
    }

    @Test func storeCommandsNeedAStoreFile() throws {
        let sandbox = try JuiceSandbox()
        let result = try sandbox.run(["--in-memory", "store", "check"])
        #expect(result.status == 64, "\(result.stderr)")
        let missing = try sandbox.run(["store", "recover"])
        #expect(missing.status == 64, "\(missing.stderr)")
    }
}
