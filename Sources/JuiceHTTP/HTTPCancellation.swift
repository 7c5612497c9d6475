#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Locking

/// Cancels requests from any thread, at once: a flag per request and a pipe whose read
/// end is in every `poll` the client makes, so a cancel wakes a waiting request
/// immediately instead of at its deadline.
///
/// One signal serves many requests in turn (an endpoint's, one at a time): each
/// request takes a number from `begin()`, and `cancel(_:)` cancels that request and
/// any earlier one, never a later one. `cancelAll()` cancels every request, present
/// and future.
package final class HTTPCancellation: Sendable {
    private struct State {
        var issued: UInt64 = 0
        var cancelledThrough: UInt64 = 0
        var all = false
    }

    private let state = Locked(State())
    /// Read end (polled by requests) and write end (written by cancels); non-blocking.
    let wakeRead: Int32
    private let wakeWrite: Int32

    /// Why the pipe could not be made (no descriptor left): every request then fails
    /// with it rather than wait without a way to be woken.
    let unusable: String?

    package init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
            unusable = nil
        } else {
            unusable = "cannot create the cancellation pipe: \(String(cString: strerror(errno)))"
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        if unusable == nil {
            close(wakeRead)
            close(wakeWrite)
        }
    }

    /// A number for the next request.
    package func begin() -> UInt64 {
        state.withLock { state in
            state.issued &+= 1
            return state.issued
        }
    }

    /// Cancels request `number` (and earlier ones) and wakes it if it waits.
    package func cancel(_ number: UInt64) {
        state.withLock { $0.cancelledThrough = max($0.cancelledThrough, number) }
        wake()
    }

    /// Cancels every request, now and later.
    package func cancelAll() {
        state.withLock { $0.all = true }
        wake()
    }

    /// Whether request `number` is cancelled.
    package func isCancelled(_ number: UInt64) -> Bool {
        state.withLock { $0.all || $0.cancelledThrough >= number }
    }

    private func wake() {
        guard unusable == nil else { return }
        var byte: UInt8 = 1
        // A full pipe already holds a wake-up: nothing is lost when this write fails.
        _ = write(wakeWrite, &byte, 1)
    }

    /// Empties the pipe (the wake-ups it held have been seen).
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
    }
}
