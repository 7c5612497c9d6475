#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock over `pthread_mutex_t`: the one lock type of the package.
///
/// Why not `Synchronization.Mutex`: ThreadSanitizer on Linux does not see it (it
/// reports every access it guards as a race), and `swift test --sanitize=thread`
/// must be able to prove this package race-free. Every pthread call's result is
/// checked, as swift-log's `Lock` does: a failure is a programming error (unlocking
/// a lock this thread does not hold) and stops the process with the error code.
/// The mutex lives in its own allocation so its address never changes.
///
/// Not re-entrant: locking it twice on one thread deadlocks (see `ReentrantLock`).
//
// @unchecked Sendable: the only stored property is the pointer to the mutex, which
// is only ever passed to the pthread functions, themselves safe from any thread.
public final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        #if DEBUG
        // Errors a misuse (unlocking another thread's lock) instead of undefined behaviour.
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        #endif
        let error = pthread_mutex_init(mutex, &attributes)
        precondition(error == 0, "pthread_mutex_init failed with error \(error)")
    }

    deinit {
        let error = pthread_mutex_destroy(mutex)
        precondition(error == 0, "pthread_mutex_destroy failed with error \(error)")
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Takes the lock, waiting for it.
    @inlinable @inline(__always)
    public func lock() {
        let error = pthread_mutex_lock(mutex)
        precondition(error == 0, "pthread_mutex_lock failed with error \(error)")
    }

    /// Releases the lock, which the calling thread holds.
    @inlinable @inline(__always)
    public func unlock() {
        let error = pthread_mutex_unlock(mutex)
        precondition(error == 0, "pthread_mutex_unlock failed with error \(error)")
    }

    /// Runs `body` holding the lock.
    @inlinable @inline(__always)
    public func withLock<Result: ~Copyable, Failure: Error>(
        _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value only reachable while holding its lock: the package's replacement for
/// `Synchronization.Mutex`, with the same `withLock` shape.
///
/// Like `Mutex`, it takes a value that need not be `Sendable` (a database connection)
/// and keeps it in its own isolation region: the value goes in as `sending`, and
/// what `withLock` returns goes out as `sending`, so no reference to it escapes.
//
// @unchecked Sendable: `value` is only dereferenced inside `withLock`, under `lock`,
// and the `sending` annotations keep it (and anything reachable from it) from being
// shared outside the lock, exactly as `Synchronization.Mutex` does.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    @usableFromInline let value: UnsafeMutablePointer<Value>

    public init(_ initial: consuming sending Value) {
        value = .allocate(capacity: 1)
        value.initialize(to: initial)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    @inlinable
    public func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value.pointee)
    }
}
