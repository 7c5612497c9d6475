#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock over `pthread_mutex_t`.
///
/// The bus uses it instead of `Synchronization.Mutex` because ThreadSanitizer on
/// Linux understands pthread mutexes (it reports every access guarded by
/// `Synchronization.Mutex` as a race), and `swift test --sanitize=thread` must be
/// able to prove the bus race-free. The mutex lives in its own allocation so its
/// address never changes.
///
/// @unchecked Sendable: the only stored property is the pointer to the mutex, which
/// is only ever passed to the pthread functions, themselves safe from any thread.
@usableFromInline
final class Lock: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    @inlinable @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A value only reachable while holding its lock.
///
/// @unchecked Sendable: `value` is only dereferenced inside `withLock`, under `lock`;
/// `Value` is Sendable, so what `withLock` returns may cross threads.
@usableFromInline
final class Locked<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    @usableFromInline let value: UnsafeMutablePointer<Value>

    init(_ initial: Value) {
        value = .allocate(capacity: 1)
        value.initialize(to: initial)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
    }

    @inlinable
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value.pointee) }
    }
}
