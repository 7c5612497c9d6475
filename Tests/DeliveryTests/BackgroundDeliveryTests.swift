import Dispatch
import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing

/// `backgroundDelivery` (the default): `juice order` and `juice stock` commit and exit,
/// and a background `juice deliver` they start sends their events. Real processes, a
/// real store, a loopback endpoint and a command subscriber writing to a file.
@Suite(.tags(.process, .slow), .notInUnitRun, .offPool) struct BackgroundDeliveryTests {
    /// `juice subscribers --json` as name → row.
    private func subscribers(_ workspace: JuiceSandbox) throws -> [String: [String: Any]] {
        let rows = try workspace.subscriberRows()
        return Dictionary(rows.compactMap { row in (row["name"] as? String).map { ($0, row) } }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether no process holds `<store>.lease-<name>` now.
    private func leaseIsFree(_ workspace: JuiceSandbox, _ name: String) -> Bool {
        let descriptor = open(workspace.storePath + ".lease-" + name, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(descriptor, LOCK_UN)
        return true
    }

    /// Waits (polling, bounded by the generous deadline) until `satisfied` holds for
    /// `juice subscribers --json`'s rows and no background run holds a lease of `names`.
    private func waitUntilSettled(
        _ workspace: JuiceSandbox, _ names: [String], _ satisfied: ([String: [String: Any]]) -> Bool
    ) async throws -> [String: [String: Any]] {
        var rows = try subscribers(workspace)
        _ = try await eventually {
            rows = try subscribers(workspace)
            return satisfied(rows) && names.allSatisfy({ leaseIsFree(workspace, $0) })
        }
        return rows
    }

    private func lag(_ row: [String: Any]?) -> Int { row?["lag"] as? Int ?? -1 }

    /// A workspace whose webhook `hook` (juiceMade only) posts to `server`, with
    /// `backgroundDelivery` off.
    private func inlineHookWorkspace(_ server: LoopbackHTTPServer) throws -> JuiceSandbox {
        try JuiceSandbox.delivery(
            subscribers: #"[{"type": "webhook", "name": "hook", "url": "\#(server.url)", "events": ["juiceMade"]}]"#,
            backgroundDelivery: false)
    }

    @Test func anOrderReturnsBeforeItsEventIsAcknowledgedAndTheEventStillArrives() async throws {
        // The endpoint answers the first request only when the test opens the gate,
        // which it does after the order has exited: the order cannot have waited.
        let gate = DispatchSemaphore(value: 0)
        let server = LoopbackHTTPServer { index, _ in
            if index == 0 { gate.wait() }
            return .status(200)
        }
        try server.start()
        defer {
            gate.signal()
            server.stop()
        }
        let workspace = try JuiceSandbox.delivery(
            subscribers: #"[{"type": "webhook", "name": "hook", "url": "\#(server.url)", "events": ["juiceMade"], "timeoutSeconds": 60}]"#)
        #expect(try workspace.run(["order", "banana"]).status == 0)
        #expect(await server.waitForRequests(1), "the background run posted the event")
        gate.signal()
        let rows = try await waitUntilSettled(workspace, ["hook"]) { lag($0["hook"]) == 0 }
        #expect(lag(rows["hook"]) == 0, "\(rows)")
        let ids = server.requests.compactMap { $0.headers["webhook-id"] }
        #expect(ids == (try workspace.juiceMadeIDs()), "exactly the journal's juiceMade event, once")
        #expect(workspace.errors.isEmpty, "\(workspace.errors)")
    }

    /// No event lost, in journal order, under concurrent commands: every order and stock
    /// change of twelve processes at once reaches both subscribers.
    @Test func concurrentCommandsLoseNoEvent() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        let probe = try JuiceSandbox.delivery(subscribers: "[]")
        let lines = probe.file("lines.jsonl")
        let workspace = try JuiceSandbox.delivery(
            subscribers: #"""
                [{"type": "webhook", "name": "hook", "url": "\#(server.url)", "timeoutSeconds": 30},
                 {"type": "command", "name": "program", "command": ["/bin/sh", "-c", "cat >> '\#(lines)'"]}]
                """#)
        var processes: [Process] = []
        for index in 0..<12 {
            processes.append(try workspace.start(index % 3 == 0 ? ["stock", "add", "kiwi", "1"] : ["order", "banana"]).process)
        }
        for process in processes {
            reap(process)
            #expect(process.terminationStatus == 0)
        }
        let rows = try await waitUntilSettled(workspace, ["hook", "program"]) { lag($0["hook"]) == 0 && lag($0["program"]) == 0 }
        #expect(lag(rows["hook"]) == 0 && lag(rows["program"]) == 0, "\(rows)")

        let journal = try workspace.journalSequences()
        #expect(journal == Array(1...Int64(journal.count)), "the journal has no gaps")
        #expect(journal.count == 4 + 8 * 2, "4 stock changes, 8 orders of one juice.made and one stock.changed each")
        let posted = try server.requests.map { try CloudEventFormat.decode($0.text).sequence }
        let written = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n").map {
            try CloudEventFormat.decode(String($0)).sequence
        }
        for (name, received) in [("webhook", posted), ("command", written)] {
            #expect(Set(received) == Set(journal), "\(name): every event arrived")
        }
        // The command subscriber, one at a time: in order (a resend repeats an event
        // already sent, never skips ahead). The webhook, 16 in flight: never further
        // ahead than its window.
        var highest: Int64 = 0
        for sequence in written {
            #expect(sequence <= highest + 1, "command: \(sequence) after \(highest)")
            highest = max(highest, sequence)
        }
        #expect(windowViolations(posted, window: 16).isEmpty, "webhook: \(posted)")
        #expect(workspace.errors.isEmpty, "\(workspace.errors)")
    }

    /// An endpoint that is down: the order still succeeds and says nothing; the failure
    /// is recorded where `juice subscribers` shows it, and `juice deliver` right after an
    /// order (the background run may still hold the lease) tries the event itself.
    @Test func aFailingEndpointIsRecordedAndDeliverRightAfterAnOrderTriesItself() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        server.stop()  // the port is closed: connections are refused
        let workspace = try JuiceSandbox.delivery(
            subscribers: #"[{"type": "webhook", "name": "hook", "url": "\#(server.url)", "events": ["juiceMade"], "retrySchedule": [600]}]"#)
        #expect(try workspace.run(["order", "banana"]).status == 0)
        let rows = try await waitUntilSettled(workspace, ["hook"]) { $0["hook"]?["lastError"] != nil }
        #expect((rows["hook"]?["attempts"] as? Int ?? 0) >= 1, "\(rows)")
        #expect(lag(rows["hook"]) == 2, "the order's two events wait in the journal: \(rows)")
        #expect(workspace.errors.isEmpty, "the order itself printed nothing: \(workspace.errors)")
        for _ in 0..<3 {
            #expect(try workspace.run(["order", "banana"]).status == 0)
            // Never "left to another process": it waits for the background run, then tries.
            #expect(try workspace.run(["deliver"]).status == 75, "\(workspace.errors)")
        }
        #expect(!workspace.errors.contains("another juice process"), "\(workspace.errors)")
        // The later orders said it, since the background run has no terminal.
        #expect(workspace.errors.contains("hook: delivery is failing ("), "\(workspace.errors)")

        try server.start()
        defer { server.stop() }
        #expect(try workspace.run(["deliver"]).status == 0)
        let sequences = try server.requests.map { try CloudEventFormat.decode($0.text).sequence }
        #expect(Set(sequences).count == 4, "\(sequences)")
    }

    /// A 410 stops delivery in the background run; the next order says so, and how
    /// to resume it, and the next run sends it nothing.
    @Test func aStoppedSubscriberIsSaidByTheNextOrder() async throws {
        let server = LoopbackHTTPServer { _, _ in .status(410) }
        try server.start()
        defer { server.stop() }
        // The marker: a second subscriber, delivered by the same background runs.
        let marker = LoopbackHTTPServer { _, _ in .status(200) }
        try marker.start()
        defer { marker.stop() }
        let workspace = try JuiceSandbox.delivery(
            subscribers: #"""
                [{"type": "webhook", "name": "hook", "url": "\#(server.url)", "events": ["juiceMade"]},
                 {"type": "webhook", "name": "marker", "url": "\#(marker.url)", "events": ["juiceMade"]}]
                """#)
        #expect(try workspace.run(["order", "banana"]).status == 0)
        let rows = try await waitUntilSettled(workspace, ["hook", "marker"]) {
            $0["hook"]?["stopped"] as? Bool == true && lag($0["marker"]) == 0
        }
        #expect(rows["hook"]?["stopped"] as? Bool == true, "\(rows)")
        #expect(try workspace.run(["order", "banana"]).status == 0)
        #expect(workspace.errors.contains("hook: delivery is stopped ("), "\(workspace.errors)")
        #expect(workspace.errors.contains("juice subscribers retry hook"), "\(workspace.errors)")
        // The second order's event reached the marker and the run let both leases go:
        // whatever that run sent the stopped hook has arrived by now.
        let after = try await waitUntilSettled(workspace, ["hook", "marker"]) { lag($0["marker"]) == 0 && marker.requests.count == 2 }
        #expect(marker.requests.count == 2, "\(after)")
        #expect(server.requests.count == 1, "nothing more was sent to a stopped subscriber")
    }

    /// A lease that cannot be taken (its file is a directory here; a store directory
    /// removed under a running process is the same) is a store failure retried every
    /// second: `juice deliver`, and so the background run, still ends within its
    /// 10 s patience, the events left in the journal, instead of retrying forever.
    @Test func aLeaseThatCannotBeTakenEndsDeliverWithinItsPatience() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        let workspace = try inlineHookWorkspace(server)
        try FileManager.default.createDirectory(atPath: workspace.storePath + ".lease-hook", withIntermediateDirectories: false)
        #expect(try workspace.run(["order", "banana"]).status == 0)
        let deliver = try workspace.start(["deliver"]).process
        #expect(await waitForExit(deliver, within: .seconds(90)), "juice deliver kept retrying the lease")
        #expect(deliver.terminationStatus == 75)
        #expect(server.requests.isEmpty)
        #expect(workspace.errors.contains("lease-hook"), "\(workspace.errors)")
        #expect(lag(try subscribers(workspace)["hook"]) == 2)
    }

    /// `--no-wait` (what the background run is started with) leaves a subscriber whose
    /// lease is held to its holder: here the test holds it, so nothing is sent until it
    /// lets go, and then a plain `juice deliver` sends it.
    @Test func noWaitLeavesAHeldLeaseToItsHolder() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        let workspace = try inlineHookWorkspace(server)
        let holder = open(workspace.storePath + ".lease-hook", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(holder >= 0 && flock(holder, LOCK_EX | LOCK_NB) == 0)
        #expect(try workspace.run(["order", "banana"]).status == 0)
        let deliver = try workspace.start(["deliver", "--no-wait", "--json"])
        #expect(await waitForExit(deliver.process, within: .seconds(60)))
        #expect(await deliver.finished() == 0)
        let text = deliver.stdout
        #expect(text.contains(#""state":"leftToAnotherProcess""#), "\(text)")
        #expect(server.requests.isEmpty)
        close(holder)
        #expect(try workspace.run(["deliver"]).status == 0)
        #expect(server.requests.count == 1)
    }

    @Test func withBackgroundDeliveryOffTheOrderDeliversBeforeItExits() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        let workspace = try inlineHookWorkspace(server)
        #expect(try workspace.run(["order", "banana"]).status == 0)
        #expect(server.requests.count == 1, "delivered by the order itself")
    }
}
