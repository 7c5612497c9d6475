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
