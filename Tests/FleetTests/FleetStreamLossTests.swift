import FleetConfiguration
import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing
import CNATSLoader
@testable import NATSClient
@testable import NATSPlugin

/// A `juice deliver --follow` whose stream stops answering, or goes away, while it
/// publishes: it starts again on a new connection (which checks the stream, and
/// creates it), and every event still reaches the stream, once.
@Suite(.tags(.nats, .process, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetStreamLossTests {
    /// A `nats` subscriber that waits 0.5 s for a PubAck and retries every 0.25 s for a long while.
    static func subscriber(_ url: String) -> String {
        FleetIntegrationTests.natsSubscriber(url, timeoutSeconds: 0.5, retries: 200)
    }

    /// Commits `orders` orders straight to the machine's store (no delivery), as
    /// another `juice` process would.
    static func commitOrders(_ machine: JuiceSandbox, _ orders: Int, from start: Int = 0) throws {
        let store = try SQLiteStore(path: machine.file("juice.db"), durability: .normal, initialStock: Stock(repeating: 100_000))
        let maker = JuiceMaker(store: store, source: Fleet.source(machine: machine.name))
        for index in start..<(start + orders) { try maker.make(Juice.allCases[index % Juice.allCases.count]) }
    }

    /// The `nats` subscriber's row of `juice subscribers --json`.
    static func row(_ machine: JuiceSandbox) async throws -> [String: Any] {
        let output = try await machine.running(["subscribers", "--json"]).stdout
        let rows = (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [[String: Any]] ?? []
        return rows.first ?? [:]
    }

    /// Waits until `accepts` takes the subscriber's row (or `seconds` pass); the last row seen.
    static func waitForRow(_ machine: JuiceSandbox, within seconds: Double, _ accepts: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var row: [String: Any] = [:]
        // Each look is a juice run of its own (tens of milliseconds): no pause between them.
        while Date() < deadline {
            row = try await Self.row(machine)
            if accepts(row) { break }
        }
        return row
    }

    /// Creates stream `name` for `subjects` that stores what is published but answers no
    /// publish (JetStream's `no_ack`): every PubAck a publisher waits for is lost, on a
    /// connection that stays up.
    static func addSilentStream(_ url: String, name: String, subjects: String) throws {
        let connection = try NATSConnection(NATSOptions(servers: [url], timeout: 5, reconnects: false))
        defer { connection.close() }
        let (status, jsError) = connection.addStream(name, subjects: subjects, replicas: 1) { $0.NoAck = true }
        guard status == NATS_OK else { throw FleetTestError("js_AddStream: status \(status.rawValue), JetStream error \(jsError.rawValue)") }
    }

    static func deleteStream(_ url: String) throws {
        let connection = try NATSConnection(NATSOptions(servers: [url], timeout: 5, reconnects: false))
        defer { connection.close() }
        try connection.deleteStream("JUICEMAKER")
    }

    /// More than two flights of publishes get no PubAck on a live connection. Each
    /// attempt fails on its own timeout (never on libnats' limit of outstanding
    /// publishes, which the lost ones would fill if they stayed counted), and once
    /// the stream answers again every event arrives, once.
    @Test(.timeLimit(.minutes(2)))
    func publishesWhosePubAckNeverComesAreSentAgainOnANewConnection() async throws {
        let server = try await NATSServerProcess.started(prefix: "juice-fleet-silent-")
        defer { server.stop() }
        try Self.addSilentStream(server.url, name: "JUICEMAKER", subjects: "juicemaker.>")
        let machine = try JuiceSandbox.fleetMachine("shop-1", subscribers: Self.subscriber(server.url))
        try Self.commitOrders(machine, 500)
        let journal = try await machine.eventIDs()
        // Four attempts publish more than libnats would hold on one connection (twice
        // a flight) if the unanswered ones stayed counted.
        #expect(4 * journal.count > 2 * NATSDestination.flight, "\(journal.count) events")

        let deliverer = try machine.start(["deliver", "--follow"], inputFile: "/dev/null").process
        defer { terminate(deliverer) }
        // Four failed attempts: more outstanding publishes than libnats allows on one connection.
        let failing = try await Self.waitForRow(machine, within: 30) { ($0["attempts"] as? Int ?? 0) >= 4 }
        let lastError = failing["lastError"] as? String ?? ""
        #expect((failing["attempts"] as? Int ?? 0) >= 4, "\(failing)")
        #expect(lastError.contains("no PubAck within"), "\(lastError)")
        #expect(!lastError.contains("stalled"), "\(lastError)")
        #expect((failing["lag"] as? Int ?? 0) == journal.count, "\(failing)")

        // The stream answers again: deleted, the next connection creates it as it should be.
        try Self.deleteStream(server.url)
        let caughtUp = try await Self.waitForRow(machine, within: 30) { ($0["lag"] as? Int) == 0 }
        #expect((caughtUp["lag"] as? Int) == 0, "\(caughtUp)")
        let streamed = try await FleetIntegrationTests.streamIDs(server.url)
        #expect(streamed.count == Set(streamed).count, "duplicates in the stream")
        #expect(Set(streamed) == Set(journal), "stream \(streamed.count), journal \(journal.count)")
    }

    /// A stream that takes `limit` messages and refuses the rest (JetStream's
    /// `discard: new`): a flight's publishes after the limit are refused, the ones
    /// before it are stored. The cursor moves to exactly the last stored event, the
    /// refused one fails with the stream's reason, and nothing after it is accepted.
    /// Once a stream takes them, the rest arrive, each once.
    @Test(.timeLimit(.minutes(2)))
    func aRefusalInsideAFlightStopsTheCursorAtTheLastStoredEvent() async throws {
        let server = try await NATSServerProcess.started(prefix: "juice-fleet-refused-")
        defer { server.stop() }
        let limit = 100
        let connection = try NATSConnection(NATSOptions(servers: [server.url], timeout: 5, reconnects: false))
        let (status, jsError) = connection.addStream("JUICEMAKER", subjects: "juicemaker.>", replicas: 1) { config in
            config.MaxMsgs = Int64(limit)
            config.Discard = js_DiscardNew
        }
        connection.close()
        guard status == NATS_OK else { throw FleetTestError("js_AddStream: status \(status.rawValue), JetStream error \(jsError.rawValue)") }
        let machine = try JuiceSandbox.fleetMachine("shop-3", subscribers: Self.subscriber(server.url))
        try Self.commitOrders(machine, 80)
        let journal = try await machine.eventIDs()
        // More than the limit, and all of them in the first flight.
        #expect(journal.count > limit && journal.count < NATSDestination.flight, "\(journal.count) events")

        let deliverer = try machine.start(["deliver", "--follow"], inputFile: "/dev/null").process
        defer { terminate(deliverer) }
        let refused = try await Self.waitForRow(machine, within: 30) { ($0["attempts"] as? Int ?? 0) >= 2 }
        #expect((refused["lag"] as? Int) == journal.count - limit, "\(refused)")
        let lastError = refused["lastError"] as? String ?? ""
        #expect(lastError.lowercased().contains("maximum messages"), "\(lastError)")
        #expect(try await FleetIntegrationTests.streamIDs(server.url) == Array(journal.prefix(limit)))

        // A stream without the limit (the next connection creates it): the rest
        // arrive, from exactly the refused one on.
        try Self.deleteStream(server.url)
        let caughtUp = try await Self.waitForRow(machine, within: 30) { ($0["lag"] as? Int) == 0 }
        #expect((caughtUp["lag"] as? Int) == 0, "\(caughtUp)")
        #expect(try await FleetIntegrationTests.streamIDs(server.url) == Array(journal.dropFirst(limit)))
    }

    /// The stream is deleted while `juice deliver --follow` runs: the next publish has
    /// no stream to take it, the stream is created again, and every later event arrives.
    @Test(.timeLimit(.minutes(2)))
    func aStreamDeletedWhileDeliveringIsCreatedAgain() async throws {
        let server = try await NATSServerProcess.started(prefix: "juice-fleet-deleted-")
        defer { server.stop() }
        let machine = try JuiceSandbox.fleetMachine("shop-2", subscribers: Self.subscriber(server.url))
        try Self.commitOrders(machine, 5)
        let deliverer = try machine.start(["deliver", "--follow"], inputFile: "/dev/null").process
        defer { terminate(deliverer) }
        let before = try await machine.eventIDs()
        #expect(await FleetIntegrationTests.waitForStream(server.url, count: UInt64(before.count), within: 20) == UInt64(before.count))

        try Self.deleteStream(server.url)
        try Self.commitOrders(machine, 5, from: 5)
        let after = Array(try await machine.eventIDs().dropFirst(before.count))
        #expect(!after.isEmpty)
        let caughtUp = try await Self.waitForRow(machine, within: 30) { ($0["lag"] as? Int) == 0 }
        #expect((caughtUp["lag"] as? Int) == 0, "\(caughtUp)")
        let streamed = try await FleetIntegrationTests.streamIDs(server.url)
        #expect(streamed == after, "stream \(streamed), after the deletion \(after)")
    }
}
