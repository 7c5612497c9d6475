import Dispatch
import Locking

/// Async callers waiting for a value kept elsewhere (behind its owner's lock) to
/// reach some state: each registers a condition; whoever changes the value calls
/// `resumeSatisfied(by:)` with the new value, and a caller's deadline is one
/// scheduled wake-up. Nobody sleeps in a loop, and no thread of the cooperative
/// pool is blocked.
package final class AsyncWaiters<Value>: Sendable {
    private struct Waiter {
        let isSatisfied: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// A few waiters at most, in an array: `resumeSatisfied` runs at every change of
    /// the value (once or twice per event delivered), so its walk must cost little.
    private struct Registry {
        var waiters: [(id: UInt64, waiter: Waiter)] = []
        var next: UInt64 = 0
    }

    private let registry = Locked(Registry())

    package init() {}

    /// Returns `true` once `isSatisfied` holds for a value passed to
    /// `resumeSatisfied` (or `current()` says it holds now: it is asked first, and
    /// again once the caller is registered), `false` at `deadline`.
    package func wait(
        until deadline: ContinuousClock.Instant?, current: () -> Bool,
        for isSatisfied: @escaping @Sendable (Value) -> Bool
    ) async -> Bool {
        if current() { return true }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = registry.withLock { registry -> UInt64 in
                registry.next &+= 1
                registry.waiters.append((registry.next, Waiter(isSatisfied: isSatisfied, continuation: continuation)))
                return registry.next
            }
            // A change between the first look and the registration is caught here.
            if current() { resume(id, returning: true) }
            if let deadline {
                let left = TimeSpan(ContinuousClock.now.duration(to: deadline))
                DispatchQueue.global().asyncAfter(deadline: left.deadline(after: .now())) { [self] in
                    resume(id, returning: false)
                }
            }
        }
    }

    /// Resumes every caller `value` satisfies. Call it under the lock that guards the
    /// value, right after changing it, so no change is missed.
    package func resumeSatisfied(by value: Value) {
        var ready: [CheckedContinuation<Bool, Never>] = []
        registry.withLock { registry in
            var index = 0
            while index < registry.waiters.count {
                if registry.waiters[index].waiter.isSatisfied(value) {
                    ready.append(registry.waiters.remove(at: index).waiter.continuation)
                } else {
                    index += 1
                }
            }
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    private func resume(_ id: UInt64, returning satisfied: Bool) {
        let waiter = registry.withLock { registry -> Waiter? in
            guard let index = registry.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return registry.waiters.remove(at: index).waiter
        }
        waiter?.continuation.resume(returning: satisfied)
    }
}
