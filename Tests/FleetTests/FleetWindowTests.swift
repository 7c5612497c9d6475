import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Locking
import Synchronization
import Testing
import WebhookPlugin
import NATSClient

/// `juice fleet deliver` with a webhook that keeps a window in flight, against a real
/// `nats-server -js` and a loopback endpoint that answers after a fixed latency and
/// checks every signature: each message is acknowledged on its own as its answer
/// comes, a failing one holds only itself, `kill -9` loses nothing, `ordered` keeps
/// journal order.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetWindowTests {
    static let secret = "whsec_" + Data("fleet window secret".utf8).base64EncodedString()

    /// A server with `latency` that counts requests not signed with `secret`.
    static func endpoint(
        latency: Duration, script: @escaping @Sendable (Int, LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Answer
    )
        -> LoopbackHTTPServer
    {
        let signature = WebhookSignature(secret: secret)
        return .signed(latency: latency, verify: { signature?.verify(header: $0, id: $1, timestamp: $2, body: $3) ?? false }, script: script)
    }

    static func central(_ server: NATSServerProcess, hook: LoopbackHTTPServer, settings: String, fleet: String = "") throws -> JuiceSandbox {
        try JuiceSandbox.fleetMachine(
            "central",
            subscribers:
                #"[{"type": "webhook", "name": "central-hook", "url": "\#(hook.url)", "secret": "\#(secret)", "timeoutSeconds": 30, \#(settings)}]"#,
            extra: #""fleet": {"url": "\#(server.url)"\#(fleet)}"#)
    }

    /// Runs `juice fleet deliver` until `hook` has `count` requests, at most ten times:
    /// a message a stopped or killed deliverer held comes back after the ack wait.
    /// Runs `juice fleet deliver` until `done` holds (or a minute passes, which only a
    /// hang reaches): what a killed deliverer held comes back only after its ack wait,
    /// so a run may find nothing yet and the next one the rest.
    static func deliver(_ central: JuiceSandbox, until done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !done(), ContinuousClock.now < deadline {
            let run = try await central.running(["fleet", "deliver"])
            #expect(run.status == 0, "\(run.stderr)")
        }
    }

    /// Stream sequence 5 of 40 fails, 16 in flight: the 15 after it are delivered and
    /// acknowledged on their own, nothing past the window is sent, the ack floor waits
    /// at 4. The next run sends 5 and the rest, and none of 6–20 again.
    @Test(.timeLimit(.minutes(2)))
    func oneFailingMessageHoldsOnlyItself() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let failing = Atomic<Bool>(true)
        let hook = Self.endpoint(latency: .milliseconds(20)) { _, request in
            request.sequence == 5 && failing.load(ordering: .relaxed) ? .status(500) : .status(200)
        }
        try hook.start()
        defer { hook.stop() }
        let machine = try await JuiceSandbox.publishing("shop-a", to: server, orders: Array(repeating: "kiwi", count: 20))
        let ids = Set(try await machine.eventIDs())
        #expect(ids.count == 40)
        let central = try Self.central(server, hook: hook, settings: #""retrySchedule": [600], "maxInFlight": 16"#, fleet: #", "ackWait": 1"#)
        let first = try await central.running(["fleet", "deliver"])
        #expect(first.status == 75, "a retry is scheduled: \(first.stderr)")
        let sent = hook.requests.compactMap(\.sequence)
        #expect(Set(sent) == Set(1...20), "\(sent)")
        #expect(sent.count == 20, "\(sent)")
        let item = try #require(try await FleetDeadLetterTests.fleetItem(central), "\(central.errors)")
        #expect(item["cursor"] as? Int == 4 && item["attempts"] as? Int == 1, "\(item)")

        failing.store(false, ordering: .relaxed)
        try await Self.deliver(central) { hook.requests.count >= 41 }
        let delivered = hook.requests.compactMap { $0.headers["webhook-id"] }
        #expect(Set(delivered) == ids)
        #expect(delivered.count == 41, "every event once, stream sequence 5 twice: \(hook.requests.compactMap(\.sequence))")
        #expect(windowViolations(hook.requests.compactMap(\.sequence), window: 16).isEmpty)
        #expect(hook.failedVerification == 0)
        #expect(try await FleetDeadLetterTests.fleetItem(central)?["lag"] as? Int == 0)
    }

    /// `kill -9` of `juice fleet deliver --follow` with 16 requests in flight to an
    /// endpoint 50 ms away: after the ack wait the stream sends the unacknowledged ones
    /// again, and nothing is lost; what was answered before the kill (each message is
    /// acknowledged as its answer comes) is not sent again.
    @Test(.timeLimit(.minutes(2)))
    func killMidFlightLosesNothingAndResendsAtMostTheWindow() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let hook = Self.endpoint(latency: .milliseconds(50)) { _, _ in .status(200) }
        try hook.start()
        defer { hook.stop() }
        let machine = try await JuiceSandbox.publishing("shop-a", to: server, orders: Array(repeating: "kiwi", count: 40))
        let ids = Set(try await machine.eventIDs())
        let central = try Self.central(server, hook: hook, settings: #""maxInFlight": 16"#, fleet: #", "ackWait": 1"#)
        let follower = try central.start(["fleet", "deliver", "--follow"], inputFile: "/dev/null").process
        _ = await hook.waitForRequests(40, until: .now + .seconds(30))
        kill(follower.processIdentifier, SIGKILL)
        await exited(follower)
        #expect(follower.terminationReason == .uncaughtSignal)
        try await Self.deliver(central) { Set(hook.requests.compactMap { $0.headers["webhook-id"] }) == ids }
        let delivered = hook.requests.compactMap { $0.headers["webhook-id"] }
        #expect(Set(delivered) == ids, "every event received at least once")
        let duplicates = delivered.count - Set(delivered).count
        #expect(duplicates <= 16, "at most the window again: \(duplicates)")
        #expect(hook.failedVerification == 0)
    }

    /// `ordered: true` through the stream: every third first attempt fails, and the
    /// events answered 2xx still come in stream order.
    @Test(.timeLimit(.minutes(2)))
    func orderedKeepsStreamOrderUnderRetries() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let seen = Locked<Set<Int64>>([])
        let accepted = Locked<[Int64]>([])
        let hook = Self.endpoint(latency: .milliseconds(5)) { _, request in
            let sequence = request.sequence ?? 0
            if seen.withLock({ $0.insert(sequence).inserted }), sequence % 3 == 0 { return .status(500) }
            accepted.withLock { $0.append(sequence) }
            return .status(204)
        }
        try hook.start()
        defer { hook.stop() }
        _ = try await JuiceSandbox.publishing("shop-a", to: server, orders: Array(repeating: "kiwi", count: 10))
        let central = try Self.central(server, hook: hook, settings: #""retrySchedule": [0.05], "maxInFlight": 16, "ordered": true"#)
        let run = try await central.running(["fleet", "deliver"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(accepted.withLock { $0 } == Array(1...20))
        #expect(hook.connectionsAccepted == 1)
        #expect(hook.failedVerification == 0)
    }

    /// A window wider than the consumer's `max_ack_pending` could never fill: refused
    /// before anything is fetched, exit 78, one line that says what to change.
    @Test(.timeLimit(.minutes(1)))
    func aWindowAboveMaxAckPendingIsRefused() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let hook = Self.endpoint(latency: .zero) { _, _ in .status(200) }
        try hook.start()
        defer { hook.stop() }
        _ = try await JuiceSandbox.publishing("shop-a", to: server)
        let central = try Self.central(server, hook: hook, settings: #""maxInFlight": 64"#, fleet: #", "maxAckPending": 32"#)
        let run = try await central.running(["fleet", "deliver"])
        #expect(run.status == 78)
        #expect(run.stderr.contains("maxInFlight 64 is above fleet.maxAckPending 32"), "\(run.stderr)")
        #expect(hook.requests.isEmpty)
    }
}
