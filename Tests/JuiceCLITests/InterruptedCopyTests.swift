import CSQLite
import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// `juice store backup` and `juice store recover` killed half-way: the file they were
/// asked for either does not exist or is the complete copy, never a part of one that
/// a later `--store` would take for a store.
@Suite(.tags(.process), .notInUnitRun, .offPool, .serialized) struct InterruptedCopyTests {
    /// A store with some orders and 48 MB of other pages, so a copy takes a while. One
    /// test at a time (`.serialized`): two copies of it at once load the disk for everyone.
    private func largeStore(_ sandbox: JuiceSandbox) throws {
        let maker = try JuiceMaker(store: SQLiteStore(path: sandbox.storePath, durability: .normal))
        for _ in 0..<6 { try maker.make(.banana) }
        var handle: OpaquePointer?
        guard sqlite3_open_v2(sandbox.storePath, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw CocoaError(.fileReadUnknown)
        }
        defer { sqlite3_close_v2(handle) }
        let sql = """
            CREATE TABLE padding(x);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 48) INSERT INTO padding SELECT randomblob(1000000) FROM n;
            """
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw CocoaError(.fileWriteUnknown) }
    }

    @Test(arguments: [["store", "backup", "copy.db"], ["store", "recover", "--to", "copy.db"]])
    func aCopyKilledHalfWayLeavesNoFileByItsName(_ command: [String]) throws {
        let sandbox = try JuiceSandbox()
        try largeStore(sandbox)
        let work = sandbox.root + "/work"
        let target = work + "/copy.db"
        let stock = try sandbox.run(["stock", "--json"]).stdout
        let running = try sandbox.start(command, inputFile: "/dev/null")
        // Another process's file: nothing signals its creation, so it is looked for.
        _ = eventuallyOnThisThread(within: .seconds(60), every: .microseconds(200)) {
            !running.process.isRunning
                || ((try? FileManager.default.contentsOfDirectory(atPath: work)) ?? []).contains(where: { $0.hasPrefix("copy.db.partial-") })
        }
        kill(running.process.processIdentifier, SIGKILL)
        running.process.waitUntilExit()
        if FileManager.default.fileExists(atPath: target) {
            // The kill came after the copy was complete: it must be all of it.
            #expect(try sandbox.run(["--store", target, "stock", "--json"]).stdout == stock)
        }
        // Run to its end, the copy is whole and takes the name (a stale part is no obstacle).
        try? FileManager.default.removeItem(atPath: target)
        try? FileManager.default.removeItem(atPath: target + ".clean")
        let finished = try sandbox.run(command)
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(try sandbox.run(["--store", target, "stock", "--json"]).stdout == stock)
        #expect(try sandbox.run(["--store", target, "store", "check"]).status == 0)
    }

    @Test func theLinesThatNameACopyEscapeItsPath() throws {
        let sandbox = try JuiceSandbox()
        let maker = try JuiceMaker(store: SQLiteStore(path: sandbox.storePath, durability: .normal))
        try maker.make(.banana)
        for command in [["store", "backup", "b\u{1B}]0;x\u{7}.db"], ["store", "recover", "--to", "r\u{9B}31m\n.db"], ["store", "check"]] {
            let run = try sandbox.run(command)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(!run.stdout.unicodeScalars.contains { $0 != "\n" && TerminalControl.steers($0) }, "\(run.stdout.debugDescription)")
        }
        #expect(try sandbox.run(["store", "backup", "x.db"]).stdout.contains("x.db"))
    }

    @Test func aTargetThatCannotBeWrittenIsNamedAsTheCopyNotAsTheStore() throws {
        let sandbox = try JuiceSandbox()
        try JuiceMaker(store: SQLiteStore(path: sandbox.storePath, durability: .normal)).make(.banana)
        for command in [["store", "backup", "nodir/copy.db"], ["store", "recover", "--to", "nodir/copy.db"]] {
            let run = try sandbox.run(command)
            #expect(run.status == 74)
            #expect(run.stderr.contains("cannot write the copy nodir/copy.db") && !run.stderr.contains("--store"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
    }
}
