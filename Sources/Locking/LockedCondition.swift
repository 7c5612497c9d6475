#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a lock that threads can wait on until it satisfies a condition:
/// a pthread mutex and condition variable, so waiting is a signal, never a sleep in
/// a loop, and ThreadSanitizer sees every hand-over.
///
/// `change` wakes every waiter after it runs; `withLock` does not. A waiter re-checks
/// its condition under the lock each time it wakes, so spurious wake-ups are harmless.
//
// @unchecked Sendable: `value` is only dereferenced with `mutex` held (in `withLock`,
// `change` and `wait`), and `sending` keeps it from escaping, as in `Locked`.
public final class LockedCondition<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private let value: UnsafeMutablePointer<Value>

    public init(_ initial: sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var error = pthread_mutex_init(mutex, nil)
        precondition(error == 0, "pthread_mutex_init failed with error \(error)")
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        defer { pthread_condattr_destroy(&attributes) }
        #if !canImport(Darwin)
        // Deadlines are on the monotonic clock: a wall-clock jump neither cuts a
        // wait short nor stretches it.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        error = pthread_cond_init(condition, &attributes)
        precondition(error == 0, "pthread_cond_init failed with error \(error)")
        value = .allocate(capacity: 1)
        value.initialize(to: initial)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    private func lock() {
        let error = pthread_mutex_lock(mutex)
        precondition(error == 0, "pthread_mutex_lock failed with error \(error)")
    }

    private func unlock() {
        let error = pthread_mutex_unlock(mutex)
        precondition(error == 0, "pthread_mutex_unlock failed with error \(error)")
    }

    /// Runs `body` with the value, holding the lock; wakes nobody.
    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock()
        defer { unlock() }
        return try body(&value.pointee)
    }

    /// Runs `body` with the value, holding the lock, then wakes every waiter.
    public func change<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock()
        defer {
            pthread_cond_broadcast(condition)
            unlock()
        }
        return try body(&value.pointee)
    }

    /// Waits until `isReady` holds for the value, or until `deadline` (nil: no
    /// deadline). Returns whether it holds. `isReady` runs under the lock, first
    /// at once and then after each wake-up.
    public func wait(until deadline: ContinuousClock.Instant?, for isReady: (borrowing Value) -> Bool) -> Bool {
        lock()
        defer { unlock() }
        while !isReady(value.pointee) {
            guard let deadline else {
                let error = pthread_cond_wait(condition, mutex)
                precondition(error == 0, "pthread_cond_wait failed with error \(error)")
                continue
            }
            let left = ContinuousClock.now.duration(to: deadline)
            if left <= .zero { return false }
            let error = timedWait(left)
            precondition(error == 0 || error == ETIMEDOUT, "pthread_cond_timedwait failed with error \(error)")
        }
        return true
    }

    /// Waits on the condition for at most `duration`; the caller holds the lock.
    private func timedWait(_ duration: Duration) -> Int32 {
        let span = TimeSpan(duration)
        #if canImport(Darwin)
        var relative = span.relativeTimespec
        return pthread_cond_timedwait_relative_np(condition, mutex, &relative)
        #else
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        var deadline = span.deadline(after: now)
        return pthread_cond_timedwait(condition, mutex, &deadline)
        #endif
    }
}
