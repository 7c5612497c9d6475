import Dispatch
import Foundation
import JuiceTestSupport
import Locking
import Synchronization
import Testing
@testable import EventBus

/// A synchronous handler that blocks (a paused terminal pipe, say) holds up only the
/// publishers behind it: nobody else waits for it.
@Suite("A blocked handler", .tags(.unit), .timeLimit(.minutes(2)))
struct BlockedHandlerTests {
    /// A bus whose subscriber "stuck" blocks inside its handler until `release`.
    struct StuckBus {
        let bus = EventBus<Int>()
        let entered = Signal()
        let release = Gate()
        let stuck: Subscription

        init() {
            let entered = entered
            let release = release
            stuck = bus.subscribe("stuck") { _ in
                entered.fire()
                release.wait()
            }
            let bus = bus
            Thread { bus.publish(1) }.start()
        }
    }

    /// Runs `body` on its own thread; `true` if it returned within `limit`.
    func returns(within limit: Duration = .seconds(30), _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = Signal()
        Thread {
            body()
            done.fire()
        }.start()
        return done.wait(within: limit)
    }

    @Test("subscribe, statistics and another subscriber's cancel return while a handler is blocked")
    func othersDoNotWait() throws {
        let rig = StuckBus()
        defer { rig.release.open() }
        #expect(rig.entered.wait())
        let bus = rig.bus
        let other = bus.subscribe("other") { _ in }

        #expect(returns { _ = bus.subscribe("late") { _ in } })
        #expect(returns { _ = bus.statistics() })
        #expect(returns { _ = rig.stuck.statistics })
        #expect(returns { other.cancel() })
        #expect(returns { _ = bus.drain(timeout: .seconds(1)) })
        let names = bus.statistics().map(\.name)
        #expect(names == ["stuck", "late"])
    }

    @Test("cancel waits for the delivery to its own subscriber already running, and for nothing else")
    func cancelWaitsForItsOwnDelivery() throws {
        let rig = StuckBus()
        #expect(rig.entered.wait())
        let released = Atomic<Bool>(false)
        let returnedBeforeRelease = Atomic<Bool>(false)
        let cancelled = Signal()
        let stuck = rig.stuck
        Thread {
            stuck.cancel()
            if !released.load(ordering: .sequentiallyConsistent) {
                returnedBeforeRelease.store(true, ordering: .sequentiallyConsistent)
            }
            cancelled.fire()
        }.start()
        // The cancel must still be waiting: once it counts itself as waiting for the
        // delivery under way (a signal, not a pause), it has passed every point where
        // it could return early.
        let bus = rig.bus
        #expect(
            bus.moved.wait(until: .now + .seconds(30)) { _ in
                bus.cancelWaiters.load(ordering: .sequentiallyConsistent) == 1
            })
        #expect(!cancelled.wait(within: .zero))
        released.store(true, ordering: .sequentiallyConsistent)
        rig.release.open()
        #expect(cancelled.wait())
        let early = returnedBeforeRelease.load(ordering: .sequentiallyConsistent)
        #expect(!early)
    }

    @Test("a handler cancelling its own subscription does not wait for itself")
    func cancelFromOwnHandler() {
        let bus = EventBus<Int>()
        let token = Locked<Subscription?>(nil)
        let heard = Log<Int>()
        let subscription = bus.subscribe("self-cancelling") { value in
            heard.append(value)
            token.withLock { $0 }?.cancel()
        }
        token.withLock { $0 = subscription }
        #expect(
            returns {
                bus.publish(1)
                bus.publish(2)
            })
        #expect(heard.all == [1])
    }

    @Test("no delivery starts after cancel returns: 2 publishers, cancels at random moments, 400 rounds")
    func noDeliveryAfterCancel() {
        let late = Atomic<Int>(0)
        let delivered = Atomic<Int>(0)
        for round in 0..<400 {
            let bus = EventBus<Int>()
            let cancelReturned = Atomic<Bool>(false)
            let subscription = bus.subscribe("target") { _ in
                if cancelReturned.load(ordering: .sequentiallyConsistent) { late.add(1, ordering: .relaxed) }
                delivered.add(1, ordering: .relaxed)
            }
            bus.subscribe("bystander") { _ in }
            let finished = runThreads(3, within: .seconds(60)) { index in
                if index == 0 {
                    for _ in 0..<(round % 50) { sched_yield() }
                    subscription.cancel()
                    cancelReturned.store(true, ordering: .sequentiallyConsistent)
                } else {
                    for value in 0..<200 { bus.publish(value) }
                }
            }
            #expect(finished)
        }
        let lateCount = late.load(ordering: .relaxed)
        let deliveredCount = delivered.load(ordering: .relaxed)
        #expect(lateCount == 0)
        #expect(deliveredCount > 0)
    }
}
