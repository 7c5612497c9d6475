import FleetConfiguration
import Foundation
import JuiceMakerCore
import Locking
import JuiceTestSupport
import Testing
import FleetReaders
import NATSClient

/// A message that comes back to a deliverer after messages it has already delivered
/// (another deliverer held it and let go without an answer) is still delivered: the
/// journal `juice fleet deliver` reads numbers messages in the order they arrive, so
/// the runner's cursor never stands past one it has not seen. Against a real
/// `nats-server -js`, with two journals on one durable consumer.
@Suite(.tags(.nats, .process), .notInUnitRun, .requiresNATS, .serialized)
struct FleetRedeliveryOrderTests {
    /// A nats-server whose stream holds one machine's events, and a connection to it.
    final class Stream {
        let server: NATSServerProcess
        let connection: NATSConnection
        /// The events' ids, in the stream's order.
        let published: [String]

        private init(server: NATSServerProcess, connection: NATSConnection, published: [String]) {
            self.server = server
            self.connection = connection
            self.published = published
        }

        static func started(orders: [String] = ["kiwi", "banana", "mango-kiwi"]) async throws -> Stream {
            let server = try await NATSServerProcess.started()
            let machine = try await JuiceSandbox.publishing("shop-a", to: server, orders: orders)
            return Stream(server: server, connection: try server.connect(), published: try await machine.eventIDs())
        }

        func stop() {
            connection.close()
            server.stop()
        }

        /// A journal on the consumer `hook`, over `connection` (this test's own by default).
        func journal(
            _ settings: ConsumerSettings, batch: Int, on connection: NATSConnection? = nil, bookkeeping: (any DeliveryJournal)? = nil
        ) throws -> ConsumerJournal {
            let consumer = try DurableConsumer(
                connection: connection ?? self.connection, stream: "JUICEMAKER", name: "hook", settings: settings
            ) { _ in }
            return ConsumerJournal(consumer: consumer, subscriber: "hook", batch: batch, bookkeeping: bookkeeping) { _ in }
        }

        /// A deliverer on a connection of its own that takes the first three messages and
        /// keeps them in progress, until its connection is closed (as a killed process's goes).
        func holdingTheFirstThree(_ settings: ConsumerSettings) throws -> (journal: ConsumerJournal, connection: NATSConnection) {
            let own = try server.connect()
            let journal = try journal(settings, batch: 3, on: own)
            try journal.fetchAvailable(timeout: 0.2)
            return (journal, own)
        }
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
        let stream = try await Stream.started()
        defer { stream.stop() }
        let (published, connection) = (stream.published, stream.connection)
        #expect(published.count >= 6, "\(published)")
        let settings = ConsumerSettings(
            prefix: "juicemaker", ackWait: 3, maxAckPending: 1000, start: .all, maxMessageBytes: Fleet.defaultMaxMessageBytes)
        let (first, killed) = try stream.holdingTheFirstThree(settings)
        defer { first.stop() }
        let taken = try first.events(after: 0, limit: 100)
        #expect(taken.map(\.id.description) == Array(published.prefix(3)))

        // The second takes every later one; then the first dies without an answer (its
        // connection goes, as a killed process's does). The first three come back after
        // their ack wait, behind later ones in the stream's order.
        let second = try stream.journal(settings, batch: 100)
        defer { second.stop() }
        try second.fetchAvailable(timeout: 0.2)
        #expect(try second.events(after: 0, limit: 100).map(\.id.description) == Array(published.dropFirst(3)))
        killed.close()
        let delivered = try Self.deliver(published.count, from: second, within: .seconds(20))

        // Every event delivered once, though not in the stream's order; the consumer has
        // nothing left: no message was acknowledged without being delivered.
        let order = delivered.map(\.id.description)
        #expect(order.sorted() == published.sorted(), "each event once")
        #expect(order != published, "the held messages came back after later ones")
        // NATS redelivers expired messages in no promised order among themselves.
        #expect(Set(order.suffix(3)) == Set(published.prefix(3)))
        let state = try #require(try connection.consumer("hook", of: "JUICEMAKER"))
        #expect(state.ackPending == 0 && state.pending == 0 && state.ackFloor == UInt64(published.count), "\(state)")
    }

    /// A deliverer that stops hands back what it still holds, in order: another deliverer
    /// of the consumer has those messages at once, not after their ack wait (here 30 s),
    /// in the stream's order, so in-order subscribers stay in order.
    @Test(.timeLimit(.minutes(1)))
    func aStoppedDelivererHandsBackWhatItHeldInOrder() async throws {
        let stream = try await Stream.started()
        defer { stream.stop() }
        let (published, connection) = (stream.published, stream.connection)
        let settings = ConsumerSettings(
            prefix: "juicemaker", ackWait: 30, maxAckPending: 1000, start: .all, maxMessageBytes: Fleet.defaultMaxMessageBytes)
        let first = try stream.journal(settings, batch: 100)
        try first.fetchAvailable(timeout: 0.2)
        #expect(try first.events(after: 0, limit: 100).count == published.count)
        first.stop()

        let second = try stream.journal(settings, batch: 100)
        defer { second.stop() }
        let delivered = try Self.deliver(published.count, from: second, within: .seconds(10))
        #expect(delivered.map(\.id.description) == published, "every event within 10 s, in the stream's order")
        #expect(delivered.map(\.sequence) == Array(1...Int64(published.count)), "numbered as the stream numbers them")
        let state = try #require(try connection.consumer("hook", of: "JUICEMAKER"))
        #expect(state.ackPending == 0 && state.pending == 0, "\(state)")
    }

    /// Once messages are numbered past their stream sequences, a dead letter kept under a
    /// stream sequence is never taken for the held message given that number: a letter
    /// whose message is held is told by its number, one read back from the stream by its
    /// stream sequence, and one whose sequence is another message's number is not listed.
    @Test(.timeLimit(.minutes(1)))
    func deadLettersAreNeverTakenForAnotherMessage() async throws {
        let stream = try await Stream.started()
        defer { stream.stop() }
        let published = stream.published
        let count = Int64(published.count)
        let settings = ConsumerSettings(
            prefix: "juicemaker", ackWait: 3, maxAckPending: 1000, start: .all, maxMessageBytes: Fleet.defaultMaxMessageBytes)
        // 1–3 held by a deliverer that dies after the second took 4…count: they come back
        // to the second numbered count+1…count+3.
        let (first, killed) = try stream.holdingTheFirstThree(settings)
        defer { first.stop() }
        let bookkeeping = InMemoryStore()
        let second = try stream.journal(settings, batch: 100, bookkeeping: bookkeeping)
        defer { second.stop() }
        try second.fetchAvailable(timeout: 0.2)
        try second.setCursor(named: "hook", to: count)
        killed.close()
        let deadline = ContinuousClock.now + .seconds(20)
        while try second.lastSequence() < count + 3, ContinuousClock.now < deadline { try second.fetchAvailable(timeout: 0.2) }
        // The three come back numbered count+1…count+3, in an order NATS does not promise.
        let returned = try second.events(after: count, limit: 10)
        #expect(returned.map(\.sequence) == [count + 1, count + 2, count + 3])
        #expect(Set(returned.map(\.id.description)) == Set(published.prefix(3)))
        let heldNumber = try #require(returned.first { $0.id.description == published[1] }?.sequence)

        // Dead letters kept under stream sequences 2 (held, numbered `heldNumber`), 4
        // (delivered here, read back from the stream) and count+1 (a number one of the held
        // messages was given, and no stream sequence).
        for sequence in [2, 4, count + 1] {
            try bookkeeping.recordDeadLetter(
                DeadLetter(
                    subscriber: "hook@fleet", sequence: sequence, eventID: EventID(high: 0, low: 0), attempts: 1, lastError: "x", recordedAt: 0))
        }
        let letters = try second.deadLetters(for: "hook").filter { $0.subscriber == "hook" }
        #expect(letters.map(\.sequence).sorted() == [4, heldNumber])
        for (number, id) in [(Int64(4), published[3]), (heldNumber, published[1])] {
            let entry = try #require(try second.entries(after: number - 1, limit: 1).first)
            guard case .event(let event) = entry else {
                Issue.record("dead letter \(number) unread: \(entry)")
                continue
            }
            #expect(event.sequence == number && event.id.description == id)
        }
        try second.removeDeadLetters(for: "hook", sequences: [4, heldNumber])
        #expect(try bookkeeping.deadLetters(for: "hook@fleet").map(\.sequence) == [count + 1], "the letters listed were removed, no other")
    }

    /// `drained` says when the last message fetched left nothing pending, so a run that
    /// delivers what is there stops without one more fetch waited out for nothing.
    @Test(.timeLimit(.minutes(1)))
    func drainedSaysWhenTheConsumerHadNothingMore() async throws {
        let stream = try await Stream.started(orders: ["kiwi", "banana"])
        defer { stream.stop() }
        let published = stream.published
        let settings = ConsumerSettings(
            prefix: "juicemaker", ackWait: 30, maxAckPending: 1000, start: .all, maxMessageBytes: Fleet.defaultMaxMessageBytes)
        let journal = try stream.journal(settings, batch: published.count - 1)
        defer { journal.stop() }
        try journal.fetchAvailable(timeout: 0.2)
        #expect(try journal.events(after: 0, limit: 100).count == published.count - 1)
        #expect(!journal.drained, "one message is still pending")
        try journal.setCursor(named: "hook", to: Int64(published.count - 1))
        #expect(try journal.fetchAvailable(timeout: 0.2) == 1)
        #expect(journal.drained)
    }

    /// A refused message that comes again (its consumer created again from an older
    /// place, as a deliverer does when the consumer was deleted) is terminated again
    /// without a second line or a second dead letter.
    @Test(.timeLimit(.minutes(1)))
    func aRefusedMessageThatComesAgainIsNotSaidOrKeptTwice() async throws {
        let stream = try await Stream.started(orders: ["kiwi"])
        defer { stream.stop() }
        try stream.connection.publish(
            subject: "juicemaker.shop-a.stock.changed.kiwi", body: Array("not an event".utf8), headers: [], messageID: UUID().uuidString)
        let settings = ConsumerSettings(
            prefix: "juicemaker", ackWait: 30, maxAckPending: 100, start: .all, maxMessageBytes: Fleet.defaultMaxMessageBytes)
        let lines = Locked<[String]>([])
        let consumer = try DurableConsumer(connection: stream.connection, stream: "JUICEMAKER", name: "hook", settings: settings) { _ in }
        let journal = ConsumerJournal(consumer: consumer, subscriber: "hook", batch: 10) { line in lines.withLock { $0.append(line) } }
        defer { journal.stop() }
        let first = try Self.deliver(stream.published.count, from: journal, within: .seconds(20))
        #expect(first.map(\.id.description) == stream.published)
        #expect(await eventually(within: .seconds(20)) { (try? stream.connection.consumer("hook", of: "JUICEMAKER"))??.lag == 0 })
        #expect(lines.withLock { $0.count } == 1, "\(lines.withLock { $0 })")
        // The consumer goes, and comes back from the stream's start: every message comes again.
        try stream.connection.deleteConsumer("hook", of: "JUICEMAKER")
        _ = try stream.connection.ensureConsumer("hook", of: "JUICEMAKER", settings: settings, resumingAfter: 0)
        let again = await eventually(within: .seconds(30)) {
            _ = try? journal.fetchAvailable(timeout: 0.2)
            return (try? stream.connection.consumer("hook", of: "JUICEMAKER"))??.lag == 0
        }
        #expect(again, "every message came again and was acknowledged or terminated")
        #expect(lines.withLock { $0.count } == 1, "said once: \(lines.withLock { $0 })")
        #expect(try journal.deadLetters(for: "hook").count == 1)
    }
}
