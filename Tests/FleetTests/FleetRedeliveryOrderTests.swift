import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing
#if canImport(NATSClient)
import NATSClient

/// A message that comes back to a deliverer after messages it has already delivered
/// (another deliverer held it and let go without an answer) is still delivered: the
/// journal `juice fleet deliver` reads numbers messages in the order they arrive, so
/// the runner's cursor never stands past one it has not seen. Against a real
/// `nats-server -js`, with two journals on one durable consumer.
@Suite(.tags(.nats, .process), .notInUnitRun, .enabled(if: FleetEnvironment.isAvailable, FleetEnvironment.skipNote), .serialized)
struct FleetRedeliveryOrderTests {
    static func journal(on connection: NATSConnection, settings: ConsumerSettings, batch: Int) throws -> ConsumerJournal {
        let consumer = try DurableConsumer(connection: connection, stream: "JUICEMAKER", name: "hook", settings: settings) { _ in }
        return ConsumerJournal(consumer: consumer, subscriber: "hook", batch: batch) { _ in }
    }

    /// Delivers as the runner does, until `count` events or `limit`: each read after the
    /// cursor (every number above it, in order), then the cursor moved past it.
    static func deliver(_ count: Int, from journal: ConsumerJournal, within limit: Duration) throws -> [EventEnvelope] {
        var delivered: [EventEnvelope] = []
        let deadline = ContinuousClock.now + limit
        while delivered.count < count, ContinuousClock.now < deadline {
            try journal.fetchAvailable(timeout: 0.2)
            let cursor = try journal.cursor(named: "hook")
            let read = try journal.events(after: cursor, limit: 100)
            #expect(read.allSatisfy { $0.sequence > cursor } && read.map(\.sequence) == read.map(\.sequence).sorted())
            guard let last = read.last else { continue }
            delivered += read
            try journal.setCursor(named: "hook", to: last.sequence)
        }
        return delivered
    }

    @Test(.timeLimit(.minutes(1)))
    func aMessageAnotherDelivererHeldIsDeliveredAfterLaterOnes() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let machine = try await JuiceSandbox.publishing("shop-a", to: server, orders: ["kiwi", "banana", "mango-kiwi"])
        let published = try await machine.eventIDs()
        #expect(published.count >= 6, "\(published)")
        let connection = try server.connect()
        defer { connection.close() }
        // An ack wait longer than the second deliverer takes to read what is there now.
        let settings = ConsumerSettings(prefix: "juicemaker", ackWait: 2, maxAckPending: 1000, start: .all)
        // The first deliverer takes the first three messages and dies without an answer
        // (its connection goes, as a killed process's does).
        let killed = try server.connect()
        let first = try Self.journal(on: killed, settings: settings, batch: 3)
        try first.fetchAvailable(timeout: 0.2)
        let taken = try first.events(after: 0, limit: 100)
        #expect(taken.map(\.id.description) == Array(published.prefix(3)))
        killed.close()

        // The second delivers what comes. The first three come back after their ack wait,
        // behind later ones in the stream's order.
        let second = try Self.journal(on: connection, settings: settings, batch: 100)
        defer { second.stop() }
        let delivered = try Self.deliver(published.count, from: second, within: .seconds(20))

        // Every event delivered once, though not in the stream's order; the consumer has
        // nothing left: no message was acknowledged without being delivered.
        let order = delivered.map(\.id.description)
        #expect(order.sorted() == published.sorted(), "each event once")
        #expect(order != published, "the held messages came back after later ones")
        #expect(Array(order.suffix(3)) == Array(published.prefix(3)))
        let state = try #require(try connection.consumer("hook", of: "JUICEMAKER"))
        #expect(state.ackPending == 0 && state.pending == 0 && state.ackFloor == UInt64(published.count), "\(state)")
    }

    /// A deliverer that stops hands back what it still holds: another deliverer of the
    /// consumer has those messages at once, not after their ack wait (here 30 s).
    @Test(.timeLimit(.minutes(1)))
    func aStoppedDelivererHandsBackWhatItHeld() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let machine = try await JuiceSandbox.publishing("shop-a", to: server, orders: ["kiwi", "banana"])
        let published = try await machine.eventIDs()
        let connection = try server.connect()
        defer { connection.close() }
        let settings = ConsumerSettings(prefix: "juicemaker", ackWait: 30, maxAckPending: 1000, start: .all)
        let first = try Self.journal(on: connection, settings: settings, batch: 2)
        try first.fetchAvailable(timeout: 0.2)
        #expect(try first.events(after: 0, limit: 100).count == 2)
        first.stop()

        let second = try Self.journal(on: connection, settings: settings, batch: 100)
        defer { second.stop() }
        let delivered = try Self.deliver(published.count, from: second, within: .seconds(10)).map(\.id.description)
        #expect(delivered.sorted() == published.sorted(), "every event within 10 s, the two handed back among them")
        let state = try #require(try connection.consumer("hook", of: "JUICEMAKER"))
        #expect(state.ackPending == 0 && state.pending == 0, "\(state)")
    }
}
#endif
