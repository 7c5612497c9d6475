import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// Real processes sharing one store file: at once, killed mid-order, followed live.
@Suite(.tags(.process, .slow), .notInUnitRun, .serialized, .offPool) struct ProcessTests {
    /// 4 processes × 500 random orders and restocks on one new file at once.
    @Test func fourProcessesOrderingAtOnceKeepTheInvariants() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let names = (1...4).map { "probe\($0)" }
        let processes = try names.enumerated().map { offset, name in
            try Probe.start(["orders", "--store", path, "--count", "500", "--seed", "\(offset + 1)"], in: directory, name: name)
        }
        var reported: [String] = []
        var madeCount = 0
        for (probe, name) in zip(processes, names) {
            #expect(probe.finish() == 0, "\(name): \(probe.stderr)")
            #expect(probe.stderr.isEmpty, "\(name) reported an error: \(probe.stderr)")
            let lines = probe.stdout.split(separator: "\n")
            reported += lines.filter { $0.hasPrefix("made ") }.map { String($0.dropFirst(5)) }
            if let summary = lines.last(where: { $0.hasPrefix("summary ") }),
                let made = summary.split(separator: " ").first(where: { $0.hasPrefix("made=") })
            {
                madeCount += Int(made.dropFirst(5)) ?? -1
            } else {
                Issue.record("\(name) printed no summary")
            }
        }
        let store = try SQLiteStore(path: path)
        let invariants = try StoreInvariants(store: store)
        #expect(invariants.violations == [])
        let journaled = invariants.madeIDs.map(\.description)
        // Each committed order appears exactly once, and the journal holds no order
        // that no process reported.
        #expect(reported.count == madeCount)
        #expect(Set(reported).count == reported.count, "an order was reported twice")
        #expect(journaled.sorted() == reported.sorted())
        #expect(invariants.events.count > 2000, "every operation commits at least one event")
    }

    /// 20 times: a process orders in a loop and is killed with SIGKILL at a random moment.
    @Test func killingAnOrderingProcessNeverLeavesAHalfOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        var generator = SystemRandomNumberGenerator()
        for run in 1...20 {
            let probe = try Probe.start(["loop", "--store", path, "--seed", "\(run)"], in: directory, name: "loop\(run)")
            // Killed once the journal reaches a random length (0: at once, perhaps before
            // the file exists), wherever the loop is by then: a random moment, waited
            // for as a count of events.
            let target = Int64.random(in: 0...60, using: &generator)
            let reached = eventuallyOnThisThread(within: .seconds(60), every: .milliseconds(1)) {
                target == 0
                    || ((try? RawDatabase(path, readOnly: true).value("SELECT max(sequence) FROM journal")).flatMap { Int64($0) } ?? 0) >= target
            }
            #expect(reached, "run \(run): the loop never journaled \(target) events")
            kill(probe.process.processIdentifier, SIGKILL)
            _ = probe.finish()
            #expect(probe.stderr.isEmpty, "run \(run): \(probe.stderr)")
            guard FileManager.default.fileExists(atPath: path) else { continue }
            // Checked behind the store's back first, before opening it can repair anything.
            #expect(try RawDatabase(path).value("PRAGMA integrity_check") == "ok", "run \(run)")
            let store = try SQLiteStore(path: path)
            #expect(try StoreInvariants(store: store).violations == [], "run \(run)")
        }
        #expect(try SQLiteStore(path: path).lastSequence() > 0, "no run got to commit anything")
    }

    /// A reader blocked in `waitForEvents` sees a commit made by another process.
    @Test func aWaitingReaderSeesAnotherProcesssCommit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try SQLiteStore(path: path)
        let before = try store.lastSequence()
        // The timeout path, before any writer exists (nothing can arrive).
        #expect(try store.waitForEvents(after: before, timeout: .milliseconds(30)) == false)
        let process = try Probe.start(["orders", "--store", path, "--count", "1"], in: directory, name: "writer").process
        defer { reap(process) }
        // Generous: this bounds a broken follow, it does not measure a working one.
        #expect(try store.waitForEvents(after: before, timeout: .seconds(60)))
        let events = try store.events(after: before, limit: 10)
        #expect(events.first?.source == "/juice-store-probe/\(process.processIdentifier)")
    }

    /// `waitForCommit` wakes at a commit of another connection that writes no event (a
    /// cursor moved), which `waitForEvents` does not see: what `juice deliver` waits on
    /// while another process holds a subscriber's lease.
    @Test func aWaitingReaderSeesACommitWithoutEvents() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try SQLiteStore(path: path)
        let version = try store.commitVersion()
        #expect(try store.waitForCommit(after: version, timeout: .milliseconds(30)) == false)
        let other = try SQLiteStore(path: path)
        let mover = Thread { try? other.setCursor(named: "audit", to: 7) }
        mover.start()
        // Generous: this bounds a broken wait, it does not measure a working one.
        #expect(try store.waitForCommit(after: version, timeout: .seconds(60)))
        #expect(try store.commitVersion() != version)
        #expect(try store.cursor(named: "audit") == 7)
        #expect(try store.waitForEvents(after: store.lastSequence(), timeout: .milliseconds(30)) == false, "no event came")
    }
}
