import Dispatch
import JuiceTestSupport
import Synchronization
import Locking
import Testing
@testable import EventBus

@Suite("Queued delivery", .tags(.unit))
struct QueuedDeliveryTests {
    @Test("a blocked queued subscriber never blocks the publisher")
    func blockedSubscriberDoesNotBlockPublisher() throws {
        let bus = EventBus<Int>()
        let gate = Gate()
        let handled = Atomic<Int>(0)
        let seen = Log<Int>()
        let capacity = 1024
        let token = bus.subscribe("slow", delivery: .queued(capacity: capacity, whenFull: .dropOldest)) { event in
            gate.wait()
            seen.append(event)
            handled.add(1, ordering: .sequentiallyConsistent)
        }
        let total = 10_000
        // On its own thread, so a publisher that waits for the handler fails the
        // test instead of hanging it.
        let published = runThreads(1, within: .seconds(60)) { _ in
            for event in 0..<total { bus.publish(event) }
        }
        #expect(published, "publish waited for a blocked queued handler")
        #expect(handled.load(ordering: .sequentiallyConsistent) == 0)
        let blocked = try #require(token.statistics)
        #expect(blocked.delivered == 0)
        #expect(blocked.queued == capacity)
        #expect(blocked.dropped == total - capacity)

        gate.open()
        #expect(bus.drain(timeout: .seconds(60)))
        let received = seen.all
        #expect(received.count == capacity)
        // What the capacity kept: the run of events the drain had taken in hand
        // (whichever were waiting when it started), then the newest ones.
        let first = try #require(received.first)
        let inHand = received.enumerated().prefix { $0.element == first + $0.offset }.count
        let newest = received[inHand...]
        #expect(newest.elementsEqual((total - newest.count)..<total), "the newest events were not kept")
        #expect(inHand + newest.count == capacity)
        let after = try #require(token.statistics)
        #expect(
            after
                == SubscriberStatistics(
                    name: "slow", delivery: .queued(capacity: capacity, whenFull: .dropOldest),
                    delivered: capacity, failed: 0, dropped: total - capacity, queued: 0))
    }

    /// Capacity 8, one event in hand, 99 more published while the handler is blocked.
    private func overflow(_ policy: OverflowPolicy) throws -> (received: [Int], statistics: SubscriberStatistics) {
        let bus = EventBus<Int>()
        let started = Signal()
        let gate = Gate()
        let seen = Log<Int>()
        let token = bus.subscribe("full", delivery: .queued(capacity: 8, whenFull: policy)) { event in
            if event == 1 {
                started.fire()
                gate.wait()
            }
            seen.append(event)
        }
        bus.publish(1)
        #expect(started.wait())
        for event in 2...100 { bus.publish(event) }
        let blocked = try #require(token.statistics)
        #expect(blocked.queued == 8)
        #expect(blocked.delivered == 0)
        gate.open()
        #expect(bus.drain(timeout: .seconds(30)))
        return (seen.all, try #require(token.statistics))
    }

    @Test("dropOldest keeps the event in hand and the newest seven")
    func dropOldest() throws {
        let (received, statistics) = try overflow(.dropOldest)
        #expect(received == [1] + Array(94...100))
        #expect(statistics.dropped == 92)
        #expect(statistics.delivered == 8)
        #expect(statistics.queued == 0)
    }

    @Test("dropNewest keeps the first eight")
    func dropNewest() throws {
        let (received, statistics) = try overflow(.dropNewest)
        #expect(received == Array(1...8))
        #expect(statistics.dropped == 92)
        #expect(statistics.delivered == 8)
        #expect(statistics.queued == 0)
    }

    @Test("a queued handler runs off the publisher's thread, in publish order")
    func queuedOrderAndContext() {
        let bus = EventBus<Int>()
        let publisher = currentThreadIdentity()
        let seen = Log<Int>()
        let onPublisherThread = Atomic<Int>(0)
        bus.subscribe("queued", delivery: .queued(capacity: 10_000)) { event in
            if currentThreadIdentity() == publisher { onPublisherThread.add(1, ordering: .relaxed) }
            seen.append(event)
        }
        for event in 0..<5_000 { bus.publish(event) }
        #expect(bus.drain(timeout: .seconds(30)))
        #expect(seen.all == Array(0..<5_000))
        #expect(onPublisherThread.load(ordering: .relaxed) == 0)
    }

    @Test("cancelling a queued subscriber discards what waits; the event in hand finishes")
    func cancelQueued() throws {
        let bus = EventBus<Int>()
        let started = Signal()
        let gate = Gate()
        let seen = Log<Int>()
        let token = bus.subscribe("queued", delivery: .queued(capacity: 100)) { event in
            if event == 0 {
                started.fire()
                gate.wait()
            }
            seen.append(event)
        }
        bus.publish(0)
        #expect(started.wait())
        for event in 1...10 { bus.publish(event) }
        token.cancel()
        bus.publish(11)
        gate.open()
        #expect(bus.drain(timeout: .seconds(30)))
        #expect(seen.all == [0])
    }
}

@Suite("Drain", .tags(.unit))
struct DrainTests {
    @Test("drain returns true once every mailbox is empty")
    func drainWaitsForMailboxes() {
        let bus = EventBus<Int>()
        let first = Log<Int>()
        let second = Log<Int>()
        bus.subscribe("first", delivery: .queued(capacity: 10_000)) { first.append($0) }
        bus.subscribe("second", delivery: .queued(capacity: 10_000)) { second.append($0) }
        for event in 0..<2_000 { bus.publish(event) }
        #expect(bus.drain(timeout: .seconds(60)))
        #expect(first.count == 2_000)
        #expect(second.count == 2_000)
        #expect(bus.statistics().allSatisfy { $0.queued == 0 && $0.delivered == 2_000 })
    }

    @Test("drain with no queued subscriber returns true")
    func drainWithNothingQueued() {
        let bus = EventBus<Int>()
        bus.subscribe("sync") { _ in }
        bus.publish(1)
        #expect(bus.drain(timeout: .seconds(30)))
    }

    @Test("a huge drain timeout saturates to \"forever\" instead of trapping")
    func drainWithHugeTimeout() {
        let bus = EventBus<Int>()
        let heard = Log<Int>()
        bus.subscribe("queued", delivery: .queued()) { heard.append($0) }
        bus.publish(1)
        #expect(bus.drain(timeout: .seconds(Int64.max)))
        #expect(bus.drain(timeout: .seconds(Int64.max) * 4))
        #expect(heard.all == [1])
    }

    @Test("drain returns false on timeout while a handler is stuck, true after it is released")
    func drainTimesOut() {
        let bus = EventBus<Int>()
        let started = Signal()
        let gate = Gate()
        bus.subscribe("stuck", delivery: .queued()) { _ in
            started.fire()
            gate.wait()
        }
        bus.publish(1)
        #expect(started.wait())
        // The handler is stuck until the gate opens: the timeout is what is tested.
        #expect(bus.drain(timeout: .milliseconds(200)) == false)
        gate.open()
        #expect(bus.drain(timeout: .seconds(30)))
    }
}
