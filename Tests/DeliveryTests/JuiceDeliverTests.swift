import Foundation
import JuiceMakerCore
import Synchronization
import Testing

/// `juice order`, `juice deliver` and `juice deliver --follow` as real processes on a
/// SQLite store, against a loopback HTTP server run by the test.
@Suite struct JuiceDeliverTests {
    private func webhookConfig(_ server: LoopbackHTTPServer, schedule: String = "[60]", timeout: Double = 30) -> String {
        #"[{"type": "webhook", "url": "\#(server.url)", "events": ["juiceMade"], "timeoutSeconds": \#(timeout), "retrySchedule": \#(schedule)}]"#
    }

    /// Decoded bodies the server received, in arrival order.
    private func received(_ server: LoopbackHTTPServer) throws -> [EventEnvelope] {
        try server.requests.map { try CloudEventFormat.decode($0.text) }
    }

    @Test func endpointDownDuringFiftyOrdersThenDeliverSendsAllInOrder() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        server.stop()
        let workspace = try JuiceWorkspace(subscribers: webhookConfig(server, schedule: "[60, 60, 60]"))
        for _ in 0..<50 { #expect(try workspace.run(["order", "banana"]) == 0) }
        #expect(server.requests.isEmpty)
        #expect(try workspace.run(["deliver"]) == 75)  // still down: a retry is scheduled

        try server.start()
        defer { server.stop() }
        #expect(try workspace.run(["deliver"]) == 0)
        let sequences = try received(server).map(\.sequence)
        #expect(sequences.count == 50)
        #expect(sequences == sequences.sorted())
        #expect(Set(sequences).count == 50)
        #expect(try workspace.run(["deliver"]) == 0)
        #expect(server.requests.count == 50)
    }

    @Test func aHangingEndpointDoesNotHoldAnOrderPastTheFlushDeadline() async throws {
        let hanging = Atomic<Bool>(true)
        let server = LoopbackHTTPServer { _, _ in hanging.load(ordering: .relaxed) ? .hang : .status(200) }
        try server.start()
        defer { server.stop() }
        let workspace = try JuiceWorkspace(subscribers: webhookConfig(server), flushDeadlineSeconds: 0.5)
        let started = ContinuousClock.now
        #expect(try workspace.run(["order", "banana"]) == 0)
        // Bounded, not a speed assertion: the 30 s request timeout must not be waited for.
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(server.requests.count == 1)

        hanging.store(false, ordering: .relaxed)
        #expect(try workspace.run(["deliver"]) == 0)
        let ids = server.requests.compactMap { $0.headers["webhook-id"] }
        #expect(ids.count == 2)
        #expect(Set(ids).count == 1)
    }

    @Test func deliverFollowKilledTenTimesLosesNothing() async throws {
        // Each answer takes a moment, so a follower is always killed with work under way.
        let server = LoopbackHTTPServer { _, _ in
            usleep(20_000)
            return .status(200)
        }
        try server.start()
        defer { server.stop() }
        let workspace = try JuiceWorkspace(subscribers: webhookConfig(server, schedule: "[0.05, 0.05, 0.05]"), flushDeadlineSeconds: 0)
        for _ in 0..<60 { try workspace.run(["order", "banana"]) }
        let baseline = server.requests.count  // orders deliver what they can before exiting
        for _ in 0..<10 {
            let follower = try workspace.start(["deliver", "--follow"])
            let before = server.requests.count
            _ = await eventually(within: 10) { server.requests.count >= before + 3 }
            kill(follower.processIdentifier, SIGKILL)
            follower.waitUntilExit()
            #expect(follower.terminationReason == .uncaughtSignal)
        }
        #expect(try workspace.run(["deliver"]) == 0)

        let journal = try workspaceJournalIDs(workspace)
        let ids = server.requests.compactMap { $0.headers["webhook-id"] }
        let distinct = Set(ids)
        #expect(journal.count == 60)
        #expect(distinct == Set(journal), "every juiceMade event received at least once")
        let duplicates = ids.count - distinct.count
        print("deliver --follow killed 10 times: \(ids.count) requests (\(baseline) from the orders themselves) for \(distinct.count) events, \(duplicates) duplicate(s)")
    }

    /// The ids of the workspace's juiceMade events, through `juice events --json`.
    private func workspaceJournalIDs(_ workspace: JuiceWorkspace) throws -> [String] {
        let output = workspace.directory.file("events.json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: JuiceWorkspace.binary)
        process.arguments = ["events", "--type", "juiceMade", "--json", "--limit", "100000", "--config", workspace.configPath, "--store", workspace.storePath]
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: output)
        try process.run()
        process.waitUntilExit()
        let text = try String(contentsOfFile: output, encoding: .utf8)
        return try text.split(separator: "\n").map { try CloudEventFormat.decode(String($0)).id.description }
    }
}
