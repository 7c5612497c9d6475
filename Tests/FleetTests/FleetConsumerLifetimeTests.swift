import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// `juice fleet deliver`'s durable consumers live until an operator deletes them,
/// against a real `nats-server -js`.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetConsumerLifetimeTests {
    /// A machine that publishes to `server`, and a central host whose webhook `hook`
    /// is fed from the stream (`fleet` section `extraFleet` added).
    struct Fleet {
        let server: NATSServerProcess
        let machine: JuiceSandbox
        let central: JuiceSandbox
        let hook: LoopbackHTTPServer

        /// - Parameter answerAfter: seconds the webhook's endpoint takes to answer.
        private init(_ server: NATSServerProcess, extraFleet: String, answerAfter: Double) throws {
            self.server = server
            machine = try JuiceSandbox.fleetMachine("shop-a", subscribers: FleetIntegrationTests.natsSubscriber(server.url))
            hook = LoopbackHTTPServer(latency: .milliseconds(Int(answerAfter * 1000))) { _ in .status(200) }
            try hook.start()
            central = try JuiceSandbox.fleetMachine(
                "central", subscribers: #"[{"type": "webhook", "name": "central-hook", "url": "\#(hook.url)", "retrySchedule": [0.2, 0.5, 1]}]"#,
                extra: #""fleet": {"url": "\#(server.url)"\#(extraFleet)}"#)
        }

        /// A fleet on a nats-server of its own, started; `stop()` ends both.
        static func started(extraFleet: String = "", answerAfter: Double = 0) async throws -> Fleet {
            try Fleet(try await NATSServerProcess.started(), extraFleet: extraFleet, answerAfter: answerAfter)
        }

        /// Stops the webhook's endpoint, then the server.
        func stop() {
            hook.stop()
            server.stop()
        }

        /// `count` orders on the machine, published; returns the ids of the events they made.
        func publish(_ count: Int) async throws -> Set<String> {
            let before = Set(try await machine.eventIDs())
            let shell = try machine.start(["shell"])
            try shell.type(String(repeating: "kiwi\n", count: count) + "quit\n")
            _ = await shell.finished()
            #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
            let made = Set(try await machine.eventIDs()).subtracting(before)
            #expect(made.count == count * 2, "a kiwi juice and the kiwi it took, per order: \(machine.errors)")
            return made
        }

        /// Every event id the webhook received, with repeats.
        var received: [String] { hook.requests.compactMap { $0.headers["webhook-id"] } }

        /// Starts `count` `juice fleet deliver --follow` processes and waits until `events`
        /// reached the webhook (the deadline only bounds a hang).
        func follow(_ count: Int, until events: Set<String>) async throws -> [Process] {
            let processes = try (0..<count).map { _ in try central.start(["fleet", "deliver", "--follow"], inputFile: "/dev/null").process }
            let arrived = await eventually(within: .seconds(30)) { events.isSubset(of: Set(received)) }
            #expect(
                arrived,
                "\(events.subtracting(received).count) of \(events.count) missing; consumer \(String(describing: try? consumer())): \(central.errors)"
            )
            return processes
        }

        /// The consumer as the server has it, or `nil` when it does not exist.
        func consumer() throws -> ConsumerState? {
            let connection = try server.connect()
            defer { connection.close() }
            return try connection.consumer("central-hook", of: "JUICEMAKER")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func cleanExitsLeaveTheConsumerAndNothingIsSentTwice() async throws {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        var published = try await fleet.publish(10)
        // Two runs without --follow: the first delivers everything, the second nothing.
        for _ in 0..<2 {
            #expect(try await fleet.central.running(["fleet", "deliver"]).status == 0, "\(fleet.central.errors)")
            #expect(try fleet.consumer() != nil, "the consumer must outlive a clean exit")
        }
        #expect(fleet.received.count == published.count && Set(fleet.received) == published, "\(fleet.central.errors)")
        // A --follow run ended by SIGTERM leaves it too; the events after it arrive once.
        published.formUnion(try await fleet.publish(5))
        let follower = try fleet.central.start(["fleet", "deliver", "--follow"], inputFile: "/dev/null").process
        let arrived = await eventually(within: .seconds(30)) { Set(fleet.received) == published }
        await terminated(follower)
        #expect(arrived, "\(fleet.central.errors)")
        #expect(follower.terminationStatus == 143)
        #expect(try fleet.consumer() != nil, "the consumer must outlive SIGTERM")
        #expect(try await fleet.central.running(["fleet", "deliver"]).status == 0, "\(fleet.central.errors)")
        #expect(fleet.received.count == published.count, "each event once: \(fleet.received.count) for \(published.count)")
        #expect(try fleet.consumer()?.lag == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func aDeliverersTermLeavesTheOtherDelivering() async throws {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        let followers = try await fleet.follow(2, until: try await fleet.publish(3))
        let (one, other) = (followers[0], followers[1])
        defer { terminate(other) }
        await terminated(one)
        let later = try await fleet.publish(3)
        // The survivor takes every later event (the deadline only bounds a hang).
        let arrived = await eventually(within: .seconds(10)) { later.isSubset(of: Set(fleet.received)) }
        #expect(arrived, "missing \(later.subtracting(fleet.received).count) of \(later.count): \(fleet.central.errors)")
        #expect(other.isRunning)
    }

    @Test(.timeLimit(.minutes(2)))
    func aDeletedConsumerIsCreatedAgainWithOneLineAndNothingLost() async throws {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        let first = try await fleet.publish(3)
        let follower = try await fleet.follow(1, until: first)[0]
        defer { terminate(follower) }
        // `nats consumer rm` while it runs, then more events.
        let connection = try fleet.server.connect()
        defer { connection.close() }
        try connection.deleteConsumer("central-hook", of: "JUICEMAKER")
        let later = try await fleet.publish(3)
        let arrived = await eventually(within: .seconds(60)) { later.isSubset(of: Set(fleet.received)) }
        #expect(arrived, "missing \(later.subtracting(fleet.received).count) of \(later.count): \(fleet.central.errors)")
        let lines = fleet.central.errors.split(separator: "\n").filter { $0.contains("was deleted on the server") }
        #expect(lines.count == 1, "\(fleet.central.errors)")
        #expect(try connection.consumer("central-hook", of: "JUICEMAKER") != nil)
        // Nothing acknowledged before the deletion is sent again.
        #expect(fleet.received.count == first.count + later.count, "\(fleet.received.count) for \(first.count + later.count)")
    }
}

/// A slow delivery keeps its message: in-progress acks reach the server while it runs.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetAckWaitTests {
    @Test(.timeLimit(.minutes(2)))
    func aWebhookSlowerThanTheAckWaitIsNotSentTwice() async throws {
        // Two deliverers share the consumer: a message whose ack wait ran out would go to the other.
        let fleet = try await FleetConsumerLifetimeTests.Fleet.started(extraFleet: #", "ackWait": 1"#, answerAfter: 2.5)
        defer { fleet.stop() }
        var published = try await fleet.publish(1)
        let followers = try await fleet.follow(2, until: published)
        defer { followers.forEach { terminate($0) } }
        published.formUnion(try await fleet.publish(1))
        #expect(await eventually(within: .seconds(60)) { published.isSubset(of: Set(fleet.received)) }, "\(fleet.central.errors)")
        // Once the server has every message acknowledged it sends none again: then nothing
        // came a second time.
        let acknowledged = await eventually(within: .seconds(60)) { (try? fleet.consumer())??.lag == 0 }
        #expect(acknowledged, "\(fleet.central.errors)")
        #expect(fleet.received.count == published.count, "\(fleet.received.count) deliveries of \(published.count) events")
    }
}
