import EventBus
import JuiceTestSupport
import Testing
@testable import JuiceMakerCore

/// A one-shot-per-send signal between tasks: `send` never waits, `receive` waits for
/// the next send. Every hand-over in these tests goes through one, never a sleep.
private struct Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Void>.makeStream()
    }

    func send() { continuation.yield() }

    /// Waits for the next `send` (or returns at once if one is pending).
    func receive() async {
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
    }
}

/// Restocks one kiwi `count` times: one `stockChanged` event each.
private func restock(_ maker: JuiceMaker, times count: Int) throws {
    for _ in 0..<count { try maker.add(1, of: .kiwi) }
}

private func subscriberNames(_ maker: JuiceMaker) -> [String] {
    maker.subscriberStatistics().map(\.name)
}

@Suite("maker.events(): committed events as an AsyncSequence", .tags(.unit))
struct EventsSequenceTests {
    @Test("several consumers in a task group; one cancelled mid-stream; the others see every event in order")
    func cancelledConsumerLeavesTheOthersWhole() async throws {
        let maker = JuiceMaker(store: InMemoryStore())
        let half = 40
        let total = 2 * half
        let consumers = try (0..<3).map { try maker.events("consumer-\($0)", capacity: total) }
        let sawFirstHalf = Signal()
        let cancelledOne = Signal()

        let seen = try await withThrowingTaskGroup(of: (Int, [Int64]).self) { group in
            for index in 0..<2 {
                group.addTask {
                    var sequences: [Int64] = []
                    for await envelope in consumers[index] {
                        sequences.append(envelope.sequence)
                        if sequences.count == total { break }
                    }
                    return (index, sequences)
                }
            }
            group.addTask {
                // Consumer 2 runs in a task of its own, so cancelling it cancels no other.
                let consumer = Task {
                    var sequences: [Int64] = []
                    for await envelope in consumers[2] {
                        sequences.append(envelope.sequence)
                        if sequences.count == half { sawFirstHalf.send() }
                    }
                    return sequences
                }
                await sawFirstHalf.receive()
                consumer.cancel()
                let sequences = await consumer.value  // its loop ended: the sequence did
                cancelledOne.send()
                return (2, sequences)
            }

            try restock(maker, times: half)
            await cancelledOne.receive()
            #expect(subscriberNames(maker) == ["consumer-0", "consumer-1"], "the cancelled consumer left the bus")
            try restock(maker, times: half)

            var seen: [Int: [Int64]] = [:]
            for try await (index, sequences) in group { seen[index] = sequences }
            return seen
        }

        let everything = Array(Int64(1)...Int64(total))
        #expect(seen[0] == everything)
        #expect(seen[1] == everything)
        #expect(seen[2] == Array(everything.prefix(half)), "the cancelled consumer saw the first half, then ended")
        #expect(consumers.map(\.dropped) == [0, 0, 0])
    }

    @Test(
        "a slow consumer with a small buffer: drops counted exactly, delivered + dropped == published",
        arguments: [
            OverflowPolicy.dropOldest, .dropNewest,
        ])
    func slowConsumerCountsDrops(policy: OverflowPolicy) async throws {
        let maker = JuiceMaker(store: InMemoryStore())
        let capacity = 4
        let perRound = 10
        let rounds = 5
        let events = try maker.events("slow", capacity: capacity, whenFull: policy)
        let go = Signal()
        let done = Signal()

        let delivered = await withTaskGroup(of: [Int64].self) { group in
            group.addTask {
                // Slow: reads only when told, and then only what is waiting.
                var iterator = events.makeAsyncIterator()
                var sequences: [Int64] = []
                for _ in 0..<rounds {
                    await go.receive()
                    for _ in 0..<events.waiting {
                        if let envelope = await iterator.next() { sequences.append(envelope.sequence) }
                    }
                    done.send()
                }
                return sequences
            }
            for _ in 0..<rounds {
                #expect(throws: Never.self) { try restock(maker, times: perRound) }
                go.send()
                await done.receive()
            }
            return await group.reduce(into: []) { $0 += $1 }
        }

        let published = rounds * perRound
        #expect(delivered.count == rounds * capacity)
        #expect(events.dropped == rounds * (perRound - capacity))
        #expect(delivered.count + events.dropped == published)
        // Which ones survived each round: the newest with dropOldest, the first with dropNewest.
        let kept = policy == .dropOldest ? (perRound - capacity + 1)...perRound : 1...capacity
        let expected = (0..<rounds).flatMap { round in kept.map { Int64(round * perRound + $0) } }
        #expect(delivered == expected)
    }

    @Test("a task cancelled while events wait ends at its next call; the subscription is gone")
    func cancellationDiscardsWaitingEvents() async throws {
        let maker = JuiceMaker(store: InMemoryStore())
        let events = try maker.events("reader")
        let tookOne = Signal()
        let resume = Signal()
        let reader = Task {
            var iterator = events.makeAsyncIterator()
            let first = await iterator.next()
            tookOne.send()
            await resume.receive()
            return (first?.sequence, await iterator.next()?.sequence)
        }
        try restock(maker, times: 3)
        await tookOne.receive()
        #expect(events.waiting == 2)
        reader.cancel()
        resume.send()
        let (first, afterCancel) = await reader.value
        #expect(first == 1)
        #expect(afterCancel == nil, "nothing after cancellation, though two events were waiting")
        #expect(events.waiting == 0)
        #expect(!subscriberNames(maker).contains("reader"))
    }

    @Test("leaving the loop, dropping the sequence or cancel() removes the subscription")
    func noSubscriptionOutlivesItsSequence() async throws {
        let maker = JuiceMaker(store: InMemoryStore())
        do {
            let idle = try maker.events("idle")
            #expect(subscriberNames(maker) == ["idle"])
            _ = idle.waiting
        }
        #expect(subscriberNames(maker).isEmpty, "a sequence never iterated left when released")

        let first = try await firstEvent(of: maker)
        #expect(first?.sequence == 1)
        #expect(subscriberNames(maker).isEmpty, "a loop left early leaves no subscriber")

        let cancelled = try maker.events("cancelled")
        cancelled.cancel()
        #expect(subscriberNames(maker).isEmpty)
        try restock(maker, times: 1)
        var iterator = cancelled.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    /// Subscribes, restocks once and returns from inside the `for await`.
    private func firstEvent(of maker: JuiceMaker) async throws -> EventEnvelope? {
        let events = try maker.events("leaves-early")
        try restock(maker, times: 2)
        #expect(subscriberNames(maker) == ["leaves-early"])
        for await envelope in events { return envelope }
        return nil
    }

    @Test("cancel() from another task wakes a consumer waiting for an event and ends its loop")
    func cancelWakesAWaitingConsumer() async throws {
        let maker = JuiceMaker(store: InMemoryStore())
        let events = try maker.events("waiting")
        let tookBoth = Signal()
        let reader = Task {
            var count = 0
            for await _ in events {
                count += 1
                if count == 2 { tookBoth.send() }
            }
            return count
        }
        try restock(maker, times: 2)
        await tookBoth.receive()
        events.cancel()
        #expect(await reader.value == 2, "the loop ended after the two events, without a third")
        #expect(subscriberNames(maker).isEmpty)
    }

    @Test("when the maker is gone the sequence ends after the events still waiting")
    func endsAfterWaitingEventsWhenTheMakerGoes() async throws {
        var maker: JuiceMaker? = JuiceMaker(store: InMemoryStore())
        let events = try #require(maker).events("late")
        if let maker { try restock(maker, times: 3) }
        maker = nil
        var sequences: [Int64] = []
        for await envelope in events { sequences.append(envelope.sequence) }
        #expect(sequences == [1, 2, 3])
        #expect(events.dropped == 0)
    }

    @Test("kinds filters, and events come in journal order with the journal's contents")
    func kindsAndJournalOrder() async throws {
        let store = InMemoryStore()
        let maker = JuiceMaker(store: store)
        let made = try maker.events("made", kinds: [.juiceMade, .orderFailed])
        let all = try maker.events("all")
        try maker.make(.mangoKiwi)
        try maker.make(.strawberry, count: 100)
        try maker.add(2, of: .kiwi)
        let journal = try store.events(after: 0, limit: Int.max)

        var allIterator = all.makeAsyncIterator()
        var received: [EventEnvelope] = []
        for _ in journal {
            if let envelope = await allIterator.next() { received.append(envelope) }
        }
        #expect(received == journal)

        var madeIterator = made.makeAsyncIterator()
        var kinds: [EventKind] = []
        for _ in 0..<2 {
            if let envelope = await madeIterator.next() { kinds.append(envelope.event.kind) }
        }
        #expect(kinds == [.juiceMade, .orderFailed])
        #expect(made.waiting == 0, "no stockChanged was let through")
    }
}
