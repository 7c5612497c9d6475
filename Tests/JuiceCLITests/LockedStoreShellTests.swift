import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// Another process holds the store's write lock past the busy timeout while the
/// shell orders: that order is refused with the store's one error line, nothing is
/// made, and the shell takes the next line (it used to exit 74).
@Suite(.tags(.process, .slow), .notInUnitRun, .offPool) struct LockedStoreShellTests {
    @Test func anOrderTheLockHeldUpIsRefusedAndTheShellGoesOn() throws {
        let sandbox = try JuiceSandbox()
        let shell = try sandbox.start(["shell"])
        // Piped, the shell prints results only; `help` is answered once it runs (its
        // store open).
        try shell.type("help\n")
        #expect(shell.wait(until: { !$0.isEmpty }), "\(shell.stderr)")

        // This process takes the write lock (the shell has its store open by now).
        let lock = StoreWriteLock(try SQLiteStore(path: sandbox.storePath))
        #expect(lock.waitUntilHeld())
        try shell.type("7\n")
        // SQLite's busy timeout, tried six times: about 30 s.
        let refused = shell.waitForStandardError(limit: .seconds(120)) { $0.contains("\n") }
        lock.release()
        #expect(refused, "\(shell.stdout)\n\(shell.stderr)")

        try shell.type("banana\nq\n")
        #expect(shell.finish() == 0, "\(shell.stderr)")
        let errors = shell.stderr.split(separator: "\n")
        #expect(errors.count == 1, "\(shell.stderr)")
        #expect(errors.first?.hasPrefix("Error: ") == true)
        #expect(shell.stderr.contains("try again, or stop the process that holds it"), "\(shell.stderr)")
        #expect(shell.stderr.contains("locked for more than 30 s"), "the whole wait, six busy timeouts: \(shell.stderr)")
        #expect(!shell.stdout.contains("mango-kiwi juice! Enjoy!"))
        #expect(shell.stdout.contains("Here's your banana juice! Enjoy!"))
        #expect(try sandbox.stock() == ["strawberry": 10, "banana": 8, "pineapple": 10, "kiwi": 10, "mango": 10])
        #expect(try sandbox.journal().count == 2, "only the banana juice and its stockChanged")
    }

    /// Opening a store of this version reads its schema without the write lock, so a
    /// query does not queue behind another process's writer (it used to wait out the
    /// busy timeout, about 30 s, and exit 74).
    @Test func aQueryAnswersWhileAnotherProcessHoldsTheWriteLock() throws {
        let sandbox = try JuiceSandbox()
        #expect(try sandbox.run(["order", "banana"]).status == 0)
        let lock = StoreWriteLock(try SQLiteStore(path: sandbox.storePath))
        #expect(lock.waitUntilHeld())
        defer { lock.release() }
        let stock = try sandbox.run(["stock", "--json"])
        #expect(stock.status == 0, "\(stock.stderr)")
        #expect((try stock.json() as? [String: Int])?["banana"] == 8, "\(stock.stdout)")
    }
}

extension RunningProgram {
    /// Waits until `condition(stderr)` holds, or the process ends, or `limit` passes
    /// (a safety net against a hang, not a speed requirement).
    func waitForStandardError(limit: Duration = .seconds(30), until condition: (String) -> Bool) -> Bool {
        // A file: nothing signals what is written to it, so it is looked at.
        _ = eventuallyOnThisThread(within: limit) { condition(stderr) || !process.isRunning }
        return condition(stderr)
    }
}
