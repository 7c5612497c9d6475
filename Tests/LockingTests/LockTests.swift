import Dispatch
import JuiceTestSupport
import Locking
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `Lock` and `Locked`: mutual exclusion under contention, values and typed errors out of
/// `withLock`, and the misuse the error-checking mutex of a debug build stops.
@Suite(.tags(.process), .notInUnitRun) struct LockTests {
    /// Many threads add to one counter under the lock: no increment is lost, and no
    /// thread ever sees another inside the lock.
    @Test func excludesUnderContention() {
        let counter = Locked((total: 0, inside: 0, overlaps: 0))
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<20_000 {
                counter.withLock { state in
                    state.inside += 1
                    if state.inside > 1 { state.overlaps += 1 }
                    state.total += 1
                    state.inside -= 1
                }
            }
        }
        let state = counter.withLock { $0 }
        #expect(state.total == 8 * 20_000)
        #expect(state.overlaps == 0)
        #expect(state.inside == 0)
    }

    @Test func plainLockExcludesToo() {
        let lock = Lock()
        let box = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        box.initialize(to: 0)
        defer { box.deallocate() }
        let address = Int(bitPattern: box)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<20_000 {
                lock.lock()
                UnsafeMutablePointer<Int>(bitPattern: address)?.pointee += 1
                lock.unlock()
            }
        }
        #expect(box.pointee == 80_000)
    }

    private struct Refusal: Error, Equatable { let code: Int }

    @Test func withLockReturnsItsValueAndRethrowsItsTypedErrorReleasingTheLock() {
        let locked = Locked([1, 2, 3])
        #expect(locked.withLock { $0.reduce(0, +) } == 6)
        #expect(throws: Refusal(code: 7)) {
            try locked.withLock { (_: inout [Int]) throws(Refusal) -> Void in throw Refusal(code: 7) }
        }
        // The throw released the lock: it can be taken again.
        #expect(locked.withLock { $0.count } == 3)
        let lock = Lock()
        #expect(throws: Refusal(code: 1)) { try lock.withLock { () throws(Refusal) in throw Refusal(code: 1) } }
        #expect(lock.withLock { 42 } == 42)
    }

    #if DEBUG
    /// A debug build's mutex checks its use: unlocking a lock nobody holds, or locking
    /// it twice on one thread, stops the process instead of corrupting it.
    @Test func unlockingALockNobodyHoldsStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            Lock().unlock()
        }
    }

    @Test func lockingTwiceOnOneThreadStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let lock = Lock()
            lock.lock()
            lock.lock()
        }
    }

    @Test func unlockingAnotherThreadsLockStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let lock = Lock()
            lock.lock()
            let done = LockedCondition(false)
            startDetachedThread(named: "other") {
                lock.unlock()
                done.change { $0 = true }
            }
            _ = done.wait(until: nil) { $0 }
        }
    }
    #endif
}

/// `LockedCondition`: a waiter wakes when a change makes its condition true, a deadline
/// ends a wait that never comes true, and every hand-over is seen by every waiter.
@Suite(.tags(.unit)) struct LockedConditionTests {
    @Test func aWaiterWakesWhenAChangeMakesItsConditionTrue() {
        let value = LockedCondition(0)
        let woke = LockedCondition(0)
        for _ in 0..<4 {
            startDetachedThread(named: "waiter") {
                if value.wait(until: nil, for: { $0 >= 3 }) { woke.change { $0 += 1 } }
            }
        }
        for _ in 0..<3 { value.change { $0 += 1 } }
        #expect(woke.wait(until: .now + .seconds(60)) { $0 == 4 }, "every waiter woke")
        #expect(value.withLock { $0 } == 3)
    }

    @Test func aConditionAlreadyTrueReturnsAtOnceAndAPastDeadlineEndsAWait() {
        let value = LockedCondition("ready")
        #expect(value.wait(until: .now - .seconds(1)) { $0 == "ready" })
        #expect(!value.wait(until: .now - .seconds(1)) { $0 == "never" })
        #expect(!value.wait(until: .now + .milliseconds(20)) { $0 == "never" })
    }

    /// A producer hands items to consumers one at a time: each item is taken exactly once.
    @Test func handsOverEveryItemExactlyOnce() {
        let queue = LockedCondition((items: [Int](), closed: false))
        let taken = Locked([Int]())
        let finished = LockedCondition(0)
        for _ in 0..<3 {
            startDetachedThread(named: "consumer") {
                while true {
                    _ = queue.wait(until: nil) { !$0.items.isEmpty || $0.closed }
                    let item: Int? = queue.change { state in state.items.isEmpty ? nil : state.items.removeFirst() }
                    guard let item else { break }
                    taken.withLock { $0.append(item) }
                }
                finished.change { $0 += 1 }
            }
        }
        for item in 0..<2_000 { queue.change { $0.items.append(item) } }
        queue.change { $0.closed = true }
        #expect(finished.wait(until: .now + .seconds(60)) { $0 == 3 })
        #expect(taken.withLock { $0.sorted() } == Array(0..<2_000))
    }
}
