import Locking
import Synchronization

/// Serialises one maker's changes, so its events reach the bus in journal order.
///
/// Re-entrant on the thread that holds it: a synchronous handler runs inside the
/// change that published its event, and may itself make a change (an auto-restock
/// plugin, say). That nested change commits in its own store transaction (the outer
/// one has already committed) and its events wait on the bus until the current event
/// has reached every subscriber.
///
/// Lock order: this lock, then the bus's. Only the maker publishes on its bus, and
/// only while holding this lock, so no thread ever waits for this lock while
/// holding the bus's.
//
// @unchecked Sendable: `mutex` and `holder` are Sendable; `generator` is only
// dereferenced in `exchangeIDs`, which checks that the calling thread holds the lock
// (so one thread at a time), and the lock's release/acquire orders the accesses.
final class ChangeLock: @unchecked Sendable {
    private let mutex = Lock()
    /// The holding thread, or 0. Only the holder can read its own identity back.
    private let holder = Atomic<UInt>(0)
    /// The maker's id generator: state that only the holder may touch, without a
    /// lock of its own (a second lock per change shows in the in-memory order rate).
    private let generator: UnsafeMutablePointer<EventIDGenerator>

    init() {
        generator = .allocate(capacity: 1)
        generator.initialize(to: EventIDGenerator())
    }

    deinit {
        generator.deinitialize(count: 1)
        generator.deallocate()
    }

    /// Swaps the held generator with `other`; the caller holds the lock. Swapping, not
    /// copying, keeps the generator's pool of random words uniquely referenced.
    func exchangeIDs(_ other: inout EventIDGenerator) {
        assert(holder.load(ordering: .relaxed) == currentThreadIdentity(), "the change lock is not held")
        swap(&generator.pointee, &other)
    }

    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let me = currentThreadIdentity()
        if holder.load(ordering: .relaxed) == me {
            return try body()
        }
        return try mutex.withLock { () throws(Failure) -> Result in
            holder.store(me, ordering: .relaxed)
            defer { holder.store(0, ordering: .relaxed) }
            return try body()
        }
    }
}
