import JuiceTestSupport
import Synchronization
import Testing
import Locking
@testable import EventBus

@Suite("Concurrency", .tags(.unit))
struct ConcurrencyTests {
    struct Stamp: Sendable, Equatable {
        let publisher: Int
        let number: Int
    }

    @Test("each subscriber, synchronous or queued, sees every publisher's events in its order, all in one total order")
    func perPublisherOrder() throws {
        let bus = EventBus<Stamp>()
        let publishers = 8
        let perPublisher = 1_500
        let total = publishers * perPublisher
        var logs: [(String, Log<Stamp>, Subscription)] = []
        for (name, delivery) in [
            ("sync-1", Delivery.synchronous), ("queued-1", .queued(capacity: total)),
            ("sync-2", .synchronous), ("queued-2", .queued(capacity: total, whenFull: .dropNewest)),
        ] {
            let log = Log<Stamp>()
            let token = bus.subscribe(name, delivery: delivery) { log.append($0) }
            logs.append((name, log, token))
        }
        let finished = runThreads(publishers, within: .seconds(120)) { publisher in
            for number in 0..<perPublisher { bus.publish(Stamp(publisher: publisher, number: number)) }
        }
        #expect(finished)
        #expect(bus.drain(timeout: .seconds(60)))

        let reference = logs[0].1.all
        for (name, log, token) in logs {
            let received = log.all
            #expect(received.count == total, "\(name)")
            for publisher in 0..<publishers {
                let numbers = received.filter { $0.publisher == publisher }.map(\.number)
                #expect(numbers == Array(0..<perPublisher), "\(name) publisher \(publisher)")
            }
            #expect(received == reference, "\(name) saw another total order")
            #expect(try #require(token.statistics).dropped == 0)
        }
    }

    @Test("publishing on 8 threads while others subscribe and cancel: no crash, no delivery after cancel")
    func subscribeAndCancelWhilePublishing() {
        let bus = EventBus<Int>()
        let lateDeliveries = Atomic<Int>(0)
        let publishers = 8
        let churners = 4
        let rounds = 150

        let finished = runThreads(publishers + churners, within: .seconds(120)) { index in
            if index < publishers {
                for event in 0..<2_000 { bus.publish(index * 10_000 + event) }
                return
            }
            for round in 0..<rounds {
                let cancelled = Atomic<Bool>(false)
                let slot = Locked<Subscription?>(nil)
                let cancelsItself = round.isMultiple(of: 3)
                let sync = bus.subscribe("sync-\(index)-\(round)") { _ in
                    if cancelled.load(ordering: .sequentiallyConsistent) {
                        lateDeliveries.add(1, ordering: .relaxed)
                    }
                    if cancelsItself, let token = slot.withLock({ $0 }) {
                        token.cancel()
                        cancelled.store(true, ordering: .sequentiallyConsistent)
                    }
                }
                slot.withLock { $0 = sync }
                let queued = bus.subscribe("queued-\(index)-\(round)", delivery: .queued(capacity: 16)) { _ in
                    if round.isMultiple(of: 2) { bus.subscribe("from-queued") { _ in }.cancel() }
                }
                _ = bus.statistics()
                _ = sync.statistics
                if round.isMultiple(of: 2) { _ = queued.statistics }
                sync.cancel()
                cancelled.store(true, ordering: .sequentiallyConsistent)
                queued.cancel()
            }
        }
        #expect(finished)
        #expect(bus.drain(timeout: .seconds(60)))
        #expect(lateDeliveries.load(ordering: .relaxed) == 0)
        #expect(bus.statistics().isEmpty)
    }
}
