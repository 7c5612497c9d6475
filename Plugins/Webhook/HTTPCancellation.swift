import Foundation
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

/// One request's bounds: its deadline and its cancellation. Every wait of the
/// request is one `poll` on the socket and the cancellation pipe with the time left,
/// so waiting costs nothing and ends at the deadline or the cancel, whichever is first.
struct HTTPWait {
    let deadline: ContinuousClock.Instant
    let cancellation: HTTPCancellation
    let request: UInt64

    /// Throws `cancelled` if the request is cancelled, `timedOut` past the deadline.
    func check() throws(HTTPClientError) {
        if let unusable = cancellation.unusable { throw .system(unusable) }
        if cancellation.isCancelled(request) { throw .cancelled }
        if ContinuousClock.now >= deadline { throw .timedOut }
    }

    /// Waits until `descriptor` reports one of `events` (or an error or hang-up) and
    /// returns what it reported. Throws `cancelled`, or `timedOut` once `until` (at
    /// most the request's deadline) passes.
    func wait(_ descriptor: Int32, for events: Int16, until limit: ContinuousClock.Instant? = nil) throws(HTTPClientError) -> Int16 {
        let end = limit.map { min($0, deadline) } ?? deadline
        while true {
            if cancellation.isCancelled(request) { throw .cancelled }
            let left = ContinuousClock.now.duration(to: end)
            guard left > .zero else { throw .timedOut }
            // Rounded up: a wait never ends before the deadline only to poll again at once.
            let milliseconds = Int32(clamping: (TimeSpan(left).totalNanoseconds + 999_999) / 1_000_000)
            var descriptors = [
                pollfd(fd: descriptor, events: events, revents: 0),
                pollfd(fd: cancellation.wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system("poll: \(String(cString: strerror(errno)))")
            }
            if descriptors[1].revents != 0 {
                // A wake-up: for this request, or one left by an earlier request's cancel.
                cancellation.drain()
                if descriptors[1].revents & Int16(POLLIN) == 0 { throw .cancelled }
                continue
            }
            let reported = descriptors[0].revents
            if reported & Int16(POLLNVAL) != 0 { throw .system("poll: the socket is not open") }
            if reported != 0 { return reported }
        }
    }
}
