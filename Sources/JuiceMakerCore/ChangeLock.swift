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
final class ChangeLock: Sendable {
    private let mutex = Lock()
    /// The holding thread, or 0. Only the holder can read its own identity back.
    private let holder = Atomic<UInt>(0)

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
