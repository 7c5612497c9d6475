import Dispatch
import Synchronization
import Locking

/// A wake-up for one waiting task: `signal` from any thread (cheaply, also from
/// inside an order's synchronous bus handler); `wait` returns at the first signal
/// since the previous `wait` returned, at its timeout, or when its task is cancelled.
///
/// One waiter at a time: only the runner's own loop waits.
final class DurableDeliveryWakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation: UInt64 = 0
    }

    private let state = Locked(State())
    /// Set by `signal`, cleared by `rearm`: while set, another signal adds nothing.
    private let queued = Atomic<Bool>(false)

    /// Whether a `signal` now would add anything: `false` while one is already on its
    /// way to a waiter that has not rearmed since. One atomic load: the order path's cost.
    var needsSignal: Bool { !queued.load(ordering: .sequentiallyConsistent) }

    /// Called by the waiter before it looks for work: signals from now on count again.
    /// (Before, not after, looking: a signal skipped because the flag was still set
    /// was sent before this, so its work is seen by the look that follows.)
    func rearm() {
        queued.store(false, ordering: .sequentiallyConsistent)
    }

    /// Wakes the waiter, or the next `wait` if nobody waits now.
    func signal() {
        queued.store(true, ordering: .sequentiallyConsistent)
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Waits for a signal, at most `timeout` (forever when `nil`).
    func wait(timeout: Duration?) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let generation = state.withLock { state -> UInt64? in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return nil
                    }
                    state.generation &+= 1
                    state.waiter = continuation
                    return state.generation
                }
                guard let generation else {
                    continuation.resume()
                    return
                }
                guard let timeout else { return }
                DispatchQueue.global().asyncAfter(deadline: .now() + Self.dispatchInterval(timeout)) { [self] in
                    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                        guard state.generation == generation else { return nil }
                        defer { state.waiter = nil }
                        return state.waiter
                    }
                    waiter?.resume()
                }
            }
        } onCancel: {
            signal()
        }
    }

    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return .nanoseconds(0) }
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .never }
        return .nanoseconds(Int(clamping: nanoseconds.partialValue + attoseconds / 1_000_000_000))
    }
}
