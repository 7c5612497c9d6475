import JuiceTestSupport
import Testing
import Locking
@testable import EventBus

@Suite("Re-entrant use from inside a handler", .tags(.unit))
struct ReentrancyTests {
    @Test("a nested publish is delivered breadth first, before the outer publish returns")
    func nestedPublishIsBreadthFirst() {
        let bus = EventBus<String>()
        let before = Log<String>()
        let publisher = Log<String>()
        let after = Log<String>()
        let queued = Log<String>()
        let seenByAfterWhenNestedReturned = Log<[String]>()
        bus.subscribe("before") { before.append($0) }
        bus.subscribe("publisher") { event in
            publisher.append(event)
            if event == "outer" {
                bus.publish("nested")
                // The nested publish only scheduled its event.
                seenByAfterWhenNestedReturned.append(after.all)
            }
            if event == "nested" { bus.publish("nested-2") }
        }
        bus.subscribe("after") { after.append($0) }
        bus.subscribe("queued", delivery: .queued(capacity: 100)) { queued.append($0) }

        bus.publish("outer")
        // Everything synchronous is done when the outer publish returns.
        let expected = ["outer", "nested", "nested-2"]
        #expect(before.all == expected)
        #expect(publisher.all == expected)
        #expect(after.all == expected)
        #expect(seenByAfterWhenNestedReturned.all == [[]])
        #expect(bus.drain(timeout: .seconds(30)))
        #expect(queued.all == expected)
    }

    @Test("events nested in a batch follow the whole batch")
    func nestedInBatch() {
        let bus = EventBus<String>()
        let log = Log<String>()
        bus.subscribe("publisher") { event in
            if event == "a" { bus.publish("nested") }
        }
        bus.subscribe("recorder") { log.append($0) }
        bus.publish(contentsOf: ["a", "b"])
        #expect(log.all == ["a", "b", "nested"])
    }

    @Test("subscribe from a handler: the new subscriber hears the next events, not the current one")
    func subscribeFromHandler() {
        let bus = EventBus<Int>()
        let late = Log<Int>()
        let tokens = Locked<[Subscription]>([])
        bus.subscribe("subscriber") { event in
            if event == 1 {
                let token = bus.subscribe("late") { late.append($0) }
                tokens.withLock { $0.append(token) }
            }
        }
        bus.publish(1)
        bus.publish(2)
        bus.publish(3)
        #expect(late.all == [2, 3])
        #expect(tokens.withLock { $0.count } == 1)
    }

    @Test("cancel from a handler: itself and a later subscriber stop at once")
    func cancelFromHandler() {
        let bus = EventBus<Int>()
        let slot = Locked<[String: Subscription]>([:])
        let selfLog = Log<Int>()
        let victimLog = Log<Int>()
        let selfCancelling = bus.subscribe("self") { event in
            selfLog.append(event)
            if event == 2 {
                slot.withLock { $0["self"] }?.cancel()
                slot.withLock { $0["victim"] }?.cancel()
                bus.publish(99)
            }
        }
        let victim = bus.subscribe("victim") { victimLog.append($0) }
        slot.withLock {
            $0["self"] = selfCancelling
            $0["victim"] = victim
        }
        for event in 1...4 { bus.publish(event) }
        #expect(selfLog.all == [1, 2])
        #expect(victimLog.all == [1])
        #expect(bus.statistics().isEmpty)
    }

    @Test("statistics from a handler answer without waiting")
    func statisticsFromHandler() {
        let bus = EventBus<Int>()
        let readings = Log<[Int]>()
        bus.subscribe("counter") { _ in }
        bus.subscribe("reader") { _ in
            readings.append(bus.statistics().map(\.delivered))
        }
        bus.publish(1)
        bus.publish(2)
        // The counter has handled the current event; the reader is still in it.
        #expect(readings.all == [[1, 0], [2, 1]])
    }
}
