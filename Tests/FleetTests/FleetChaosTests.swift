import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// The infrastructure changes under one running `juice fleet deliver --follow`, fed by
/// two machines whose events interleave in the stream (so a machine's sequence is
/// never its stream sequence): the consumer deleted, the server restarted, the stream
/// deleted and created again at once, the stream gone (until said gone), the deliverer restarted
/// with every `fleet` key changed. After each change, a reader of the test's own reads
/// the stream: every event of it reached the webhook, and every request's body is the
/// event as its machine published it (with only `streamsequence` added). No event
/// published is missing at the end, and none came twice.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetChaosTests {
    /// Two machines, a central host with a webhook, on one server.
    struct Rig {
        let server: NATSServerProcess
        let machines: [JuiceSandbox]
        let central: JuiceSandbox
        let hook: LoopbackHTTPServer

        init(_ server: NATSServerProcess) throws {
            self.server = server
            machines = try ["shop-a", "shop-b"].map {
                try JuiceSandbox.fleetMachine($0, subscribers: FleetIntegrationTests.natsSubscriber(server.url))
            }
            hook = LoopbackHTTPServer { _, _ in .status(200) }
            try hook.start()
            central = try JuiceSandbox.fleetMachine("central", subscribers: Self.hookSubscriber(hook.url), extra: Self.fleet(server.url, keys: ""))
        }

        static func hookSubscriber(_ url: String) -> String {
            #"[{"type": "webhook", "name": "central-hook", "url": "\#(url)", "retrySchedule": [0.2, 0.5, 1]}]"#
        }

        static func fleet(_ url: String, keys: String) -> String {
            #""fleet": {"url": "\#(url)"\#(keys)}"#
        }

        func stop() {
            hook.stop()
            server.stop()
        }

        /// One order on each machine in turn, `rounds` times, each published before the
        /// next machine's (the stream interleaves them); the ids of the events made.
        func publish(rounds: Int) async throws -> Set<String> {
            var made = Set<String>()
            for _ in 0..<rounds {
                for machine in machines {
                    let before = Set(try await machine.eventIDs())
                    #expect(try await machine.running(["order", "kiwi"]).status == 0, "\(machine.errors)")
                    #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
                    made.formUnion(Set(try await machine.eventIDs()).subtracting(before))
                }
            }
            return made
        }

        var received: [String] { hook.requests.compactMap { $0.headers["webhook-id"] } }

        func follow(config: String? = nil) throws -> Process {
            try central.start(["fleet", "deliver", "--follow"], inputFile: "/dev/null", config: config).process
        }
    }

    /// What the stream held before each change, by event id: the oracle of the bodies.
    final class Oracle: @unchecked Sendable {
        // @unchecked Sendable: used by one test task only, never concurrently.
        var messages: [String: FleetIntegrationTests.StreamedMessage] = [:]
        var published = Set<String>()
    }

    /// Waits until every event the stream holds now reached the webhook, and keeps the
    /// stream's messages for the bodies' check.
    static func expectStreamDelivered(_ rig: Rig, _ oracle: Oracle, after step: String) async throws {
        let messages = try await FleetIntegrationTests.streamMessages(rig.server.url)
        for message in messages { oracle.messages[message.id] = message }
        let streamed = Set(messages.map(\.id))
        let arrived = await eventually(within: .seconds(60)) { streamed.isSubset(of: Set(rig.received)) }
        #expect(arrived, "after \(step): \(streamed.subtracting(rig.received).count) of \(streamed.count) missing: \(rig.central.errors)")
        // And acknowledged: a change that comes before an acknowledgement may rightly bring its event again.
        let connection = try rig.server.connect()
        defer { connection.close() }
        let acknowledged = await eventually(within: .seconds(60)) { (try? connection.consumer("central-hook", of: "JUICEMAKER"))??.lag == 0 }
        #expect(acknowledged, "after \(step): \(rig.central.errors)")
    }

    @Test(.timeLimit(.minutes(5)))
    func everyEventReachesTheReceiverAsPublishedWhateverHappensToTheInfrastructure() async throws {
        let rig = try Rig(try await NATSServerProcess.started())
        defer { rig.stop() }
        let oracle = Oracle()
        oracle.published.formUnion(try await rig.publish(rounds: 2))
        var follower = try rig.follow()
        defer { terminate(follower) }
        try await Self.expectStreamDelivered(rig, oracle, after: "the start")
        let connection = try rig.server.connect()
        defer { connection.close() }

        // The consumer deleted under it.
        try connection.deleteConsumer("central-hook", of: "JUICEMAKER")
        oracle.published.formUnion(try await rig.publish(rounds: 1))
        try await Self.expectStreamDelivered(rig, oracle, after: "the consumer was deleted")

        // The server restarted (its JetStream store kept).
        await rig.server.halt()
        try await rig.server.start()
        oracle.published.formUnion(try await rig.publish(rounds: 1))
        try await Self.expectStreamDelivered(rig, oracle, after: "the server restarted")

        // The stream deleted and created again at once.
        try await Self.expectStreamDelivered(rig, oracle, after: "before the stream was deleted")
        let again = try rig.server.connect()
        defer { again.close() }
        try again.deleteStream("JUICEMAKER")
        try again.ensureStream("JUICEMAKER", subjects: "juicemaker.>", replicas: 1)
        oracle.published.formUnion(try await rig.publish(rounds: 1))
        try await Self.expectStreamDelivered(rig, oracle, after: "the stream was created again at once")

        // The stream gone until the deliverer has said so (FleetStreamIdentityTests keeps
        // it gone for 5 s), then a machine's publish creates it again.
        try again.deleteStream("JUICEMAKER")
        let said = await eventually(within: .seconds(30)) { rig.central.errors.contains("JUICEMAKER was deleted on the server") }
        #expect(said, "\(rig.central.errors)")
        oracle.published.formUnion(try await rig.publish(rounds: 1))
        try await Self.expectStreamDelivered(rig, oracle, after: "the stream was gone and said gone")

        // The deliverer restarted with every fleet key changed.
        await terminated(follower)
        let keys = #", "ackWait": 7, "maxAckPending": 300, "deliverPolicy": "new", "maxMessageBytes": 65536, "timeoutSeconds": 4"#
        let changed = try rig.central.write(
            #"{"machine": "central", "initialStock": 100000, "flushDeadlineSeconds": 1, "store": {"path": "juice.db"}, "subscribers": \#(Rig.hookSubscriber(rig.hook.url)), \#(Rig.fleet(rig.server.url, keys: keys))}"#,
            to: "changed.json")
        oracle.published.formUnion(try await rig.publish(rounds: 1))
        follower = try rig.follow(config: changed)
        try await Self.expectStreamDelivered(rig, oracle, after: "the deliverer restarted with its keys changed")
        let consumer = try again.consumer("central-hook", of: "JUICEMAKER")
        #expect(consumer?.ackWait == 7 && consumer?.maxAckPending == 300, "\(String(describing: consumer))")
        #expect(follower.isRunning, "exit \(follower.isRunning ? 0 : follower.terminationStatus): \(rig.central.errors)")

        // Nothing published is missing; nothing came twice; each body is the machine's event.
        #expect(oracle.published.isSubset(of: Set(rig.received)), "\(oracle.published.subtracting(rig.received).count) missing")
        #expect(rig.received.count == Set(rig.received).count, "\(rig.received.count) requests for \(Set(rig.received).count) events")
        #expect(Set(oracle.messages.keys) == oracle.published, "the reader saw \(oracle.messages.count) of \(oracle.published.count)")
        FleetStreamIdentityTests.expectBodiesAsPublished(rig.hook.requests, stream: Array(oracle.messages.values))
        let streamSequences = rig.hook.requests.compactMap { request -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else { return nil }
            return object["sequence"] as? String == object["streamsequence"] as? String ? nil : "differs"
        }
        #expect(!streamSequences.isEmpty, "two machines interleaved: a machine's sequence is not its stream sequence")
    }
}
