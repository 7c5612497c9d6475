import FleetConfiguration
import Foundation
import JuiceTestSupport
import Testing
import NATSClient

/// A `fleet` section changed between runs of `juice fleet deliver` never stops delivery:
/// what NATS lets a consumer change is applied, what it does not is kept and said.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetConsumerSettingsTests {
    typealias Fleet = FleetConsumerLifetimeTests.Fleet

    /// Runs `juice fleet deliver` on the central host with `fleet` keys `keys` instead of
    /// its own (the same webhook, store and server).
    static func deliver(_ fleet: Fleet, fleetKeys keys: String) async throws -> ProgramRun {
        let config = #"""
            {"machine": "central", "initialStock": 100000, "flushDeadlineSeconds": 1, "store": {"path": "juice.db"},
             "subscribers": [{"type": "webhook", "name": "central-hook", "url": "\#(fleet.hook.url)", "retrySchedule": [0.2]}],
             "fleet": {"url": "\#(fleet.server.url)", \#(keys)}}
            """#
        let path = try fleet.central.write(config, to: "changed-\(UUID().uuidString).json")
        return try await fleet.central.running(["fleet", "deliver"], config: path)
    }

    /// A consumer created again at a stream sequence (as a deliverer does when its
    /// consumer was deleted) takes a new ack wait and max_ack_pending: NATS refuses a
    /// deliver policy change, so only what it lets change is sent.
    @Test(.timeLimit(.minutes(2)))
    func aConsumerAtAStartSequenceTakesANewAckWaitAndMaxAckPending() async throws {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        let published = try await fleet.publish(2)
        let connection = try fleet.server.connect()
        defer { connection.close() }
        let settings = ConsumerSettings(
            prefix: "juicemaker", ackWait: 30, maxAckPending: 1000, start: .all, maxMessageBytes: FleetConfiguration.Fleet.defaultMaxMessageBytes)
        _ = try connection.ensureConsumer("central-hook", of: "JUICEMAKER", settings: settings, resumingAfter: 0)
        let run = try await Self.deliver(fleet, fleetKeys: #""ackWait": 10, "maxAckPending": 500"#)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "nothing kept, nothing to say: \(run.stderr)")
        #expect(Set(fleet.received) == published && fleet.received.count == published.count, "\(run.stderr)")
        let consumer = try fleet.consumer()
        #expect(consumer?.ackWait == 10 && consumer?.maxAckPending == 500, "\(String(describing: consumer))")
    }

    /// `fleet.deliverPolicy` changed for an existing consumer: it keeps its deliver
    /// policy and place, one line says so, the new ack wait is applied, delivery goes on.
    @Test(.timeLimit(.minutes(2)))
    func aChangedDeliverPolicyIsKeptSaidInOneLineAndDeliveryGoesOn() async throws {
        let fleet = try await Fleet.started()
        defer { fleet.stop() }
        var published = try await fleet.publish(2)
        #expect(try await fleet.central.running(["fleet", "deliver"]).status == 0, "\(fleet.central.errors)")
        published.formUnion(try await fleet.publish(2))
        let run = try await Self.deliver(fleet, fleetKeys: #""deliverPolicy": "new", "ackWait": 10"#)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("keeps deliver policy all, not fleet.deliverPolicy new"), "\(run.stderr)")
        #expect(Set(fleet.received) == published && fleet.received.count == published.count, "\(run.stderr)")
        #expect(try fleet.consumer()?.ackWait == 10)
    }

    /// `juice config check` refuses what `juice fleet deliver` would: a window wider than
    /// the consumer's max_ack_pending (no server needed).
    @Test func configCheckRefusesAWindowAboveMaxAckPending() async throws {
        let central = try JuiceSandbox.fleetMachine(
            "central", subscribers: #"[{"type": "webhook", "name": "hook", "url": "http://127.0.0.1:1/", "maxInFlight": 64}]"#,
            extra: #""fleet": {"url": "nats://127.0.0.1:1", "maxAckPending": 16}"#)
        let run = try await central.running(["config", "check"])
        #expect(run.status == 78)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("maxInFlight 64 is above fleet.maxAckPending 16"), "\(run.stderr)")
    }
}
