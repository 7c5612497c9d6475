import JuiceTestSupport
import Testing
@testable import EventBus

@Suite("Failure isolation", .tags(.unit))
struct FailureIsolationTests {
    @Test(
        "a throwing handler affects neither the others nor its own later events",
        arguments: [
            Delivery.synchronous, .queued(capacity: 100),
        ])
    func throwingHandlerIsIsolated(delivery: Delivery) throws {
        let failures = Log<SubscriberFailure>()
        let bus = EventBus<Int>(errorSink: { failures.append($0) })
        let before = Log<Int>()
        let calls = Log<Int>()
        let after = Log<Int>()
        let queued = Log<Int>()
        let beforeToken = bus.subscribe("before") { before.append($0) }
        let faultyToken = bus.subscribe("faulty", delivery: delivery) { event in
            calls.append(event)
            if event.isMultiple(of: 2) { throw TestError(value: event) }
        }
        let afterToken = bus.subscribe("after") { after.append($0) }
        let queuedToken = bus.subscribe("queued", delivery: .queued(capacity: 100)) { queued.append($0) }

        for event in 1...10 { bus.publish(event) }
        #expect(bus.drain(timeout: .seconds(30)))

        #expect(before.all == Array(1...10))
        #expect(after.all == Array(1...10))
        #expect(queued.all == Array(1...10))
        #expect(calls.all == Array(1...10))
        let reported = failures.all
        #expect(reported.map(\.subscriber) == Array(repeating: "faulty", count: 5))
        #expect(reported.compactMap { ($0.error as? TestError)?.value } == [2, 4, 6, 8, 10])

        #expect(
            try #require(faultyToken.statistics)
                == SubscriberStatistics(
                    name: "faulty", delivery: delivery, delivered: 5, failed: 5, dropped: 0, queued: 0))
        for token in [beforeToken, afterToken, queuedToken] {
            let statistics = try #require(token.statistics)
            #expect(statistics.delivered == 10)
            #expect(statistics.failed == 0)
            #expect(statistics.dropped == 0)
            #expect(statistics.queued == 0)
        }
    }

    @Test("statistics show queued, delivered, failed and dropped together")
    func statisticsWhileBlocked() throws {
        let failures = Log<SubscriberFailure>()
        let bus = EventBus<Int>(errorSink: { failures.append($0) })
        let started = Signal()
        let gate = Gate()
        let token = bus.subscribe("mixed", delivery: .queued(capacity: 3, whenFull: .dropNewest)) { event in
            if event == 1 { throw TestError(value: 1) }
            if event == 2 {
                started.fire()
                gate.wait()
            }
        }
        bus.publish(1)
        // The mailbox counts the failure before it goes idle: drain is the signal.
        #expect(bus.drain(timeout: .seconds(30)))
        #expect(token.statistics?.failed == 1)
        bus.publish(2)
        #expect(started.wait())
        for event in 3...10 { bus.publish(event) }
        let blocked = try #require(token.statistics)
        #expect(blocked.failed == 1)
        #expect(blocked.delivered == 0)
        #expect(blocked.queued == 3)
        #expect(blocked.dropped == 6)
        gate.open()
        #expect(bus.drain(timeout: .seconds(30)))
        #expect(
            try #require(token.statistics)
                == SubscriberStatistics(
                    name: "mixed", delivery: .queued(capacity: 3, whenFull: .dropNewest),
                    delivered: 3, failed: 1, dropped: 6, queued: 0))
        #expect(failures.all.map(\.subscriber) == ["mixed"])
    }
}
