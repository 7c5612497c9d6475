import Foundation
import JuiceTestSupport
import Locking
import Testing
#if canImport(NATSClient)
import NATSClient

/// `juice fleet deliver`'s dead letters and lag, as `juice subscribers` shows them and
/// `juice subscribers retry` resends them, against a real `nats-server -js`.
@Suite(.tags(.nats, .process), .notInUnitRun, .enabled(if: FleetEnvironment.isAvailable, FleetEnvironment.skipNote), .serialized)
struct FleetDeadLetterTests {
    /// The `<name>@fleet` item of `juice subscribers --json`.
    static func fleetItem(_ central: JuiceSandbox) async throws -> [String: Any]? {
        let output = try await central.running(["subscribers", "--json"]).stdout
        let items = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]]
        return items?.first { $0["name"] as? String == "central-hook@fleet" }
    }

    @Test(.timeLimit(.minutes(2)))
    func deadLettersAndRefusalsShowAndTheRetryHintResendsThem() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let accepting = Locked(false)
        let hook = LoopbackHTTPServer { _, _ in accepting.withLock { $0 } ? .status(200) : .status(500) }
        try hook.start()
        defer { hook.stop() }
        let machine = try await JuiceSandbox.publishing("shop-a", to: server)
        let ids = Set(try await machine.eventIDs())
        // A message that is not an event, between them.
        let connection = try server.connect()
        defer { connection.close() }
        try connection.publish(
            subject: "juicemaker.shop-a.stock.changed.kiwi", body: Array("{\"x\":\"\u{1B}[2J\"}".utf8), headers: [], messageID: UUID().uuidString)
        let central = try JuiceSandbox.fleetMachine(
            "central", subscribers: #"[{"type": "webhook", "name": "central-hook", "url": "\#(hook.url)", "retrySchedule": [0.1]}]"#,
            extra: #""fleet": {"url": "\#(server.url)"}"#)
        // The endpoint fails: each event becomes a dead letter; the refusal is one line and one more.
        let first = try await central.running(["fleet", "deliver"])
        let refusals = first.stderr.split(separator: "\n").filter { $0.contains("stream sequence 3, subject juicemaker.shop-a.stock.changed.kiwi") }
        #expect(refusals.count == 1 && refusals[0].contains("not a JuiceMaker CloudEvent") && !refusals[0].contains("\u{1B}"), "\(first.stderr)")
        #expect(first.stderr.contains("juice subscribers retry central-hook --dead-letters"), "\(first.stderr)")
        var item = try #require(try await Self.fleetItem(central), "\(central.errors)")
        #expect(item["deadLetters"] as? Int == ids.count + 1, "\(item)")
        #expect(item["lag"] as? Int == 0 && item["cursor"] as? Int == 3, "\(item)")
        let table = try await central.running(["subscribers"]).stdout
        #expect(table.contains("central-hook@fleet"), "\(table)")
        // The hint does what it says: the events are sent once more; the refusal stays.
        accepting.withLock { $0 = true }
        let retry = try await central.running(["subscribers", "retry", "central-hook", "--dead-letters"])
        #expect(retry.status == 0, "\(retry.stderr)")
        let delivered = hook.requests.compactMap { $0.headers["webhook-id"] }
        #expect(ids.isSubset(of: Set(delivered)), "\(retry.stderr)")
        #expect(retry.stderr.contains("dead letter 3 still cannot be read"), "\(retry.stderr)")
        item = try #require(try await Self.fleetItem(central))
        #expect(item["deadLetters"] as? Int == 1, "\(item)")
    }

    @Test(.timeLimit(.minutes(2)))
    func fleetLagIsTheConsumersPendingCount() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let hook = LoopbackHTTPServer { _, _ in .status(200) }
        try hook.start()
        defer { hook.stop() }
        let machine = try JuiceSandbox.fleetMachine("shop-a", subscribers: FleetIntegrationTests.natsSubscriber(server.url))
        let central = try JuiceSandbox.fleetMachine(
            "central", subscribers: #"[{"type": "webhook", "name": "central-hook", "url": "\#(hook.url)"}]"#,
            extra: #""fleet": {"url": "\#(server.url)", "deliverPolicy": "new"}"#)
        #expect(try await machine.running(["order", "kiwi"]).status == 0)
        #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
        // deliverPolicy new: what the stream held before the consumer is not sent.
        #expect(try await central.running(["fleet", "deliver"]).status == 0, "\(central.errors)")
        #expect(hook.requests.isEmpty)
        for _ in 0..<2 { #expect(try await machine.running(["order", "kiwi"]).status == 0) }
        #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
        let item = try #require(try await Self.fleetItem(central), "\(central.errors)")
        #expect(item["lag"] as? Int == 4, "two orders, two events each, not yet delivered: \(item)")
        #expect(try await central.running(["fleet", "deliver"]).status == 0, "\(central.errors)")
        #expect(hook.requests.count == 4)
        #expect(try await Self.fleetItem(central)?["lag"] as? Int == 0)
    }
}
#endif
