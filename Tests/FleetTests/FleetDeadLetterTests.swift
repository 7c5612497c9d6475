import Foundation
import JuiceTestSupport
import Locking
import Testing
import NATSClient

/// `juice fleet deliver`'s dead letters and lag, as `juice subscribers` shows them and
/// `juice subscribers retry` resends them, against a real `nats-server -js`.
@Suite(.tags(.nats, .process), .notInUnitRun, .requiresNATS, .serialized)
struct FleetDeadLetterTests {
    /// The `<name>@fleet` item of `juice subscribers --json`.
    static func fleetItem(_ central: JuiceSandbox) async throws -> [String: Any]? {
        let output = try await central.running(["subscribers", "--json"]).stdout
        let items = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]]
        return items?.first { $0["name"] as? String == "central-hook@fleet" }
    }

    /// A server; a webhook that fails until `accepting`; a machine that published one order
    /// (two events); a central host whose webhook is fed from the stream, each event a dead
    /// letter after one retry. `stop()` ends the webhook and the server.
    struct Rig {
        let server: NATSServerProcess
        let accepting: Locked<Bool>
        let hook: LoopbackHTTPServer
        let machine: JuiceSandbox
        let central: JuiceSandbox

        static func started() async throws -> Rig {
            let server = try await NATSServerProcess.started()
            let accepting = Locked(false)
            let hook = LoopbackHTTPServer { _, _ in accepting.withLock { $0 } ? .status(200) : .status(500) }
            try hook.start()
            let central = try JuiceSandbox.fleetMachine(
                "central", subscribers: #"[{"type": "webhook", "name": "central-hook", "url": "\#(hook.url)", "retrySchedule": [0.1]}]"#,
                extra: #""fleet": {"url": "\#(server.url)"}"#)
            return Rig(
                server: server, accepting: accepting, hook: hook, machine: try await JuiceSandbox.publishing("shop-a", to: server), central: central)
        }

        func stop() {
            hook.stop()
            server.stop()
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func deadLettersAndRefusalsShowAndTheRetryHintResendsThem() async throws {
        let rig = try await Rig.started()
        defer { rig.stop() }
        let (accepting, hook, central) = (rig.accepting, rig.hook, rig.central)
        let ids = Set(try await rig.machine.eventIDs())
        // A message that is not an event, between them.
        let connection = try rig.server.connect()
        defer { connection.close() }
        try connection.publish(
            subject: "juicemaker.shop-a.stock.changed.kiwi", body: Array("{\"x\":\"\u{1B}[2J\"}".utf8), headers: [], messageID: UUID().uuidString)
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

    /// Dead letters kept from a stream that was deleted and created again: their stream
    /// sequences now hold other events. A retry resends none of those, says why, and keeps the letters.
    @Test(.timeLimit(.minutes(2)))
    func aRetryNeverResendsAnotherEventAfterTheStreamWasCreatedAgain() async throws {
        let rig = try await Rig.started()
        defer { rig.stop() }
        let (accepting, hook, machine, central) = (rig.accepting, rig.hook, rig.machine, rig.central)
        _ = try await central.running(["fleet", "deliver"])
        let first = try await Self.fleetItem(central)
        #expect(first?["deadLetters"] as? Int == 2, "\(central.errors)")
        #expect(first?["deadLettersOfGoneStreams"] as? Int == 0, "the stream is there: \(String(describing: first))")
        // The stream goes; the machine's next events make a new one, from sequence 1.
        let connection = try rig.server.connect()
        defer { connection.close() }
        try connection.deleteStream("JUICEMAKER")
        let before = Set(try await machine.eventIDs())
        for _ in 0..<2 { #expect(try await machine.running(["order", "kiwi"]).status == 0) }
        #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
        let newer = Set(try await machine.eventIDs()).subtracting(before)
        #expect(try connection.streamMessageCount("JUICEMAKER") == UInt64(newer.count))
        accepting.withLock { $0 = true }
        // The new stream's events are delivered, each once; the letters are not taken for them.
        let requestsBefore = hook.requests.count
        _ = try await central.running(["subscribers", "retry", "central-hook@fleet", "--dead-letters"])
        let resent = hook.requests.dropFirst(requestsBefore).compactMap { $0.headers["webhook-id"] }
        #expect(resent.count == newer.count && Set(resent) == newer, "\(resent) for the new stream's \(newer): \(central.errors)")
        // With nothing else to deliver, the letters are read back: their sequences hold other events now.
        let retry = try await central.running(["subscribers", "retry", "central-hook@fleet", "--dead-letters"])
        #expect(hook.requests.count == requestsBefore + newer.count, "\(retry.stderr)")
        #expect(retry.stderr.contains("is now another event"), "\(retry.stderr)")
        let kept = try await Self.fleetItem(central)
        #expect(kept?["deadLetters"] as? Int == 2, "the letters are kept")
        // juice subscribers says whose stream they were.
        #expect(kept?["deadLettersOfGoneStreams"] as? Int == 2, "\(String(describing: kept))")
        let listed = try await central.running(["subscribers"])
        #expect(listed.stdout.contains("central-hook@fleet: 2 dead letters belong to a stream that is gone"), "\(listed.stdout)")
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
