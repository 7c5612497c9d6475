import JuiceTestSupport
import Testing
@testable import EventBus

@Suite("Synchronous delivery", .tags(.unit))
struct SynchronousDeliveryTests {
    @Test("every synchronous handler has run when publish returns, in subscription order")
    func handlersRunInsidePublishInSubscriptionOrder() {
        let bus = EventBus<Int>()
        let log = Log<String>()
        for name in ["a", "b", "c"] {
            bus.subscribe(name) { log.append("\(name)\($0)") }
        }
        for event in 1...3 {
            bus.publish(event)
            // Checked right after each publish: nothing may arrive later.
            let expected = (1...event).flatMap { e in ["a\(e)", "b\(e)", "c\(e)"] }
            #expect(log.all == expected)
        }
    }

    @Test("publish(contentsOf:) delivers each event to every subscriber, in order, before returning")
    func batchPublish() {
        let bus = EventBus<Int>()
        let log = Log<String>()
        bus.subscribe("a") { log.append("a\($0)") }
        bus.subscribe("b") { log.append("b\($0)") }
        bus.publish(contentsOf: [1, 2])
        #expect(log.all == ["a1", "b1", "a2", "b2"])
    }

    @Test("a cancelled subscriber hears nothing more; the others carry on")
    func cancelStopsDelivery() {
        let bus = EventBus<Int>()
        let first = Log<Int>()
        let second = Log<Int>()
        let token = bus.subscribe("first") { first.append($0) }
        bus.subscribe("second") { second.append($0) }
        bus.publish(1)
        token.cancel()
        token.cancel()
        bus.publish(2)
        #expect(first.all == [1])
        #expect(second.all == [1, 2])
        #expect(token.statistics == nil)
        #expect(bus.statistics().map(\.name) == ["second"])
    }

    @Test("statistics count delivered events per subscriber")
    func statisticsCountDeliveries() throws {
        let bus = EventBus<Int>()
        let token = bus.subscribe("counter") { _ in }
        for event in 0..<5 { bus.publish(event) }
        let statistics = try #require(token.statistics)
        #expect(
            statistics
                == SubscriberStatistics(
                    name: "counter", delivery: .synchronous, delivered: 5, failed: 0, dropped: 0, queued: 0))
    }
}

@Suite("Filters", .tags(.unit))
struct FilterTests {
    @Test("a filter runs on the publisher's thread before publish returns; rejected events count nowhere")
    func synchronousFilter() throws {
        let bus = EventBus<Int>()
        let seen = Log<Int>()
        let filtered = Log<Int>()
        let token = bus.subscribe(
            "even",
            where: {
                filtered.append($0); return $0.isMultiple(of: 2)
            }
        ) {
            seen.append($0)
        }
        for event in 1...10 {
            bus.publish(event)
            #expect(filtered.count == event)
        }
        #expect(seen.all == [2, 4, 6, 8, 10])
        let statistics = try #require(token.statistics)
        #expect(statistics.delivered == 5)
        #expect(statistics.failed == 0)
        #expect(statistics.dropped == 0)
    }

    @Test("a queued subscriber's filter runs before enqueueing: rejected events neither queue nor drop")
    func queuedFilterBeforeEnqueueing() throws {
        let bus = EventBus<Int>()
        let started = Signal()
        let gate = Gate()
        let seen = Log<Int>()
        let token = bus.subscribe(
            "even", delivery: .queued(capacity: 2, whenFull: .dropNewest), where: { $0.isMultiple(of: 2) }
        ) { event in
            seen.append(event)
            if event == 0 {
                started.fire()
                gate.wait()
            }
        }
        bus.publish(0)
        #expect(started.wait())
        // The mailbox has room for one more; 1000 odd events must not take it.
        for event in 0..<1000 { bus.publish(2 * event + 1) }
        var statistics = try #require(token.statistics)
        #expect(statistics.queued == 1)
        #expect(statistics.dropped == 0)
        bus.publish(2)
        bus.publish(4)
        statistics = try #require(token.statistics)
        #expect(statistics.queued == 2)
        #expect(statistics.dropped == 1)
        gate.open()
        #expect(bus.drain(timeout: .seconds(30)))
        #expect(seen.all == [0, 2])
        statistics = try #require(token.statistics)
        #expect(statistics.delivered == 2)
        #expect(statistics.queued == 0)
    }
}
