import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Synchronization
import Testing

/// `juice order`, `juice deliver` and `juice deliver --follow` as real processes on a
/// SQLite store, against a loopback HTTP server run by the test.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct JuiceDeliverTests {
    private func webhookConfig(_ server: LoopbackHTTPServer, schedule: String = "[60]", timeout: Double = 30, ordered: Bool = false) -> String {
        #"[{"type": "webhook", "url": "\#(server.url)", "events": ["juiceMade"], "timeoutSeconds": \#(timeout), "retrySchedule": \#(schedule), "ordered": \#(ordered)}]"#
    }

    /// Decoded bodies the server received, in arrival order.
    private func received(_ server: LoopbackHTTPServer) throws -> [EventEnvelope] {
        try server.requests.map { try CloudEventFormat.decode($0.text) }
    }

    @Test func orderedEndpointDownDuringFiftyOrdersThenDeliverSendsAllInOrder() async throws {
        let server = LoopbackHTTPServer()
        try server.start()
        server.stop()
        let workspace = try JuiceSandbox.delivery(subscribers: webhookConfig(server, schedule: "[60, 60, 60]", ordered: true))
        for _ in 0..<50 { #expect(try workspace.run(["order", "banana"]).status == 0) }
        #expect(server.requests.isEmpty)
        #expect(try workspace.run(["deliver"]).status == 75)  // still down: a retry is scheduled

        try server.start()
        defer { server.stop() }
        // `juice deliver` tries the waiting event now, though its retry is a minute away.
        let final = try workspace.run(["deliver"])
        #expect(final.status == 0, "stdout: \(final.stdout) stderr: \(final.stderr)")
        let sequences = try received(server).map(\.sequence)
        #expect(sequences.count == 50)
        #expect(sequences == sequences.sorted())
        #expect(Set(sequences).count == 50)
        #expect(try workspace.run(["deliver"]).status == 0)
        #expect(server.requests.count == 50)
    }

    @Test func aHangingEndpointDoesNotHoldAnOrderPastTheFlushDeadline() async throws {
        let hanging = Atomic<Bool>(true)
        let server = LoopbackHTTPServer { _, _ in hanging.load(ordering: .relaxed) ? .hang : .status(200) }
        try server.start()
        defer { server.stop() }
        // In the process (the flush deadline bounds the order's own deliveries).
        let workspace = try JuiceSandbox.delivery(subscribers: webhookConfig(server), flushDeadlineSeconds: 0.5, backgroundDelivery: false)
        let started = ContinuousClock.now
        #expect(try workspace.run(["order", "banana"]).status == 0)
        // Bounded, not a speed assertion: the 30 s request timeout must not be waited for.
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(server.requests.count == 1)

        hanging.store(false, ordering: .relaxed)
        #expect(try workspace.run(["deliver"]).status == 0)
        let ids = server.requests.compactMap { $0.headers["webhook-id"] }
        #expect(ids.count == 2)
        #expect(Set(ids).count == 1)
    }

    /// One deliverer per subscriber (the lease): ten SIGKILLs of `juice deliver --follow` during a
    /// stream, with `juice order` processes running beside it, resend at most the event
    /// under way at each kill (`maxInFlight` 1: one under way). (Without the lease, orders and the follower delivered the
    /// same events side by side.)
    @Test func tenKillsOfTheFollowerResendAtMostTenEvents() async throws {
        // Each follower's third request is never answered, so every follower is killed
        // with work under way (known from the request's arrival, not from slow answers).
        let held = Atomic<Int>(-1)
        let server = LoopbackHTTPServer { index, _ in index == held.load(ordering: .relaxed) ? .hang : .status(200) }
        try server.start()
        defer { server.stop() }
        let webhook =
            #"[{"type": "webhook", "url": "\#(server.url)", "events": ["juiceMade"], "timeoutSeconds": 30, "retrySchedule": [0.05, 0.05, 0.05], "maxInFlight": 1}]"#
        let workspace = try JuiceSandbox.delivery(subscribers: webhook, flushDeadlineSeconds: 10)
        let silent = try workspace.config("silent.json", subscribers: "[]")
        for _ in 0..<10 {
            // The stream: six events wait for each follower, and an order adds one.
            for _ in 0..<6 { #expect(try workspace.run(["order", "banana"], config: silent).status == 0) }
            let before = server.requests.count
            held.store(before + 2, ordering: .relaxed)
            let follower = try workspace.start(["deliver", "--follow"]).process
            _ = await server.waitForRequests(before + 1, until: .now + .seconds(10))
            // An order beside the follower: its own runner must leave delivery to it.
            let order = try workspace.start(["order", "banana"]).process
            _ = await server.waitForRequests(before + 3, until: .now + .seconds(10))
            kill(follower.processIdentifier, SIGKILL)
            follower.waitUntilExit()
            #expect(follower.terminationReason == .uncaughtSignal)
            #expect(await waitForExit(order, within: .seconds(30)))
            #expect(order.terminationStatus == 0)
        }
        #expect(try workspace.run(["deliver"]).status == 0)

        let journal = try workspace.juiceMadeIDs()
        let ids = server.requests.compactMap { $0.headers["webhook-id"] }
        let distinct = Set(ids)
        #expect(journal.count == 70)
        #expect(distinct == Set(journal), "every juiceMade event received at least once")
        let duplicates = ids.count - distinct.count
        print("deliver --follow killed 10 times beside 10 orders: \(ids.count) requests for \(distinct.count) events, \(duplicates) duplicate(s)")
        #expect(duplicates <= 10)
    }
}

/// A delivery that the flush deadline cancels is handed over to the next run: nothing
/// is recorded (no attempt, no schedule), and the message says so, not "next in 5 s".
@Suite(.tags(.process), .notInUnitRun, .offPool) struct FlushDeadlineHandOverTests {
    @Test func aDeliveryCancelledByTheFlushDeadlineIsHandedOverToTheNextRun() async throws {
        // The first request is answered only when the test opens the gate, after the
        // order has exited: slower than the 0.3 s flush deadline whatever the machine's load.
        let gate = DispatchSemaphore(value: 0)
        let server = LoopbackHTTPServer { index, _ in
            if index == 0 { gate.wait() }
            return .status(200)
        }
        try server.start()
        defer { server.stop() }
        defer { gate.signal() }
        let workspace = try JuiceSandbox.delivery(
            subscribers: #"[{"type": "webhook", "name": "slow", "url": "\#(server.url)", "events": ["juiceMade"], "timeoutSeconds": 30}]"#,
            flushDeadlineSeconds: 0.3, backgroundDelivery: false)
        #expect(try workspace.run(["order", "banana"]).status == 0)
        gate.signal()
        let errors = workspace.errors
        #expect(errors.contains("event 1 was still being delivered when juice had to exit"), "\(errors)")
        #expect(errors.contains("handed over to the next run"), "\(errors)")
        #expect(!errors.contains("next in"), "\(errors)")

        // Nothing was recorded: no attempts, no next attempt, the cursor before the event.
        let slow = try #require(try workspace.subscriberRows().first)
        #expect(slow["attempts"] == nil, "\(slow)")
        #expect(slow["nextAttempt"] == nil, "\(slow)")
        #expect(slow["cursor"] as? Int == 0)

        // `juice deliver` waits for the answer: the event goes out, the same id again.
        #expect(try workspace.run(["deliver"]).status == 0)
        let ids = server.requests.compactMap { $0.headers["webhook-id"] }
        #expect(ids.count == 2)
        #expect(Set(ids).count == 1)
    }
}
