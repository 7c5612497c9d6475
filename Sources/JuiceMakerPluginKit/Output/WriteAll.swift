#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes every byte of `bytes` to `descriptor`, going on after a short write or an
/// interruption: the `errno` of a failure, 0 when all were written. A non-blocking
/// descriptor that is full (a FIFO whose reader is slow, `FileGate`) is waited on with
/// `poll` for room, not polled: at most `patience` in all without room, then EAGAIN, so
/// a reader that stopped never holds `juice` for ever.
func writeAll(_ bytes: [UInt8], to descriptor: Int32, patience: Duration = .seconds(10)) -> Int32 {
    bytes.withUnsafeBytes { buffer -> Int32 in
        var offset = 0
        let deadline = ContinuousClock.now + patience
        while offset < buffer.count, let base = buffer.baseAddress {
            let written = write(descriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    let left = deadline - ContinuousClock.now
                    guard left > .zero else { return EAGAIN }
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 1000))
                    _ = poll(&ready, 1, max(1, milliseconds))
                    continue
                }
                return errno
            }
            offset += written
        }
        return 0
    }
}
