import Foundation
import Synchronization

/// The parent's end of a program's standard input: a Unix stream socket pair, so a
/// write to a program that has exited fails with `EPIPE` instead of killing this
/// process with `SIGPIPE` (`MSG_NOSIGNAL`), and so the parent can see how much of
/// what it wrote the program has not read yet (`SIOCOUTQ`).
///
/// Used by one task at a time (the delivery runner's); `close` may come from any
/// thread, more than once. The descriptor is closed when the last reference goes.
final class LineChannel: Sendable {
    /// The parent's end (non-blocking, close-on-exec).
    let descriptor: Int32
    /// The program's end, to hand to the child as its stdin; the parent closes it
    /// once the child has started.
    let childDescriptor: Int32
    private let closed = Atomic<Bool>(false)

    init() throws(LineChannelError) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw LineChannelError(reason: "cannot create the program's input: \(String(cString: strerror(errno)))")
        }
        descriptor = pair[0]
        childDescriptor = pair[1]
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Writes all of `bytes`, then waits until the program has read them all.
    /// Throws when the program closes its input or exits first (some of the bytes may
    /// then have been read), or when the calling task is cancelled.
    func send(_ bytes: [UInt8]) async throws(LineChannelError) {
        var offset = 0
        var pause = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                Foundation.send(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
                pause = 0
                continue
            }
            guard sent < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                throw LineChannelError(reason: "the program's input is closed (\(String(cString: strerror(errno))))")
            }
            try await wait(&pause)
        }
        // The kernel marks the socket closed before it discards unread data, and flags
        // the discard with ECONNRESET: so "nothing unread, then not closed" means read,
        // and "closed" is a success only if nothing was discarded.
        while true {
            guard let pending = unread else {
                throw LineChannelError(reason: "the program's input is closed")
            }
            if peerClosed {
                guard pending == 0, pendingError != ECONNRESET else {
                    throw LineChannelError(reason: "the program exited before it read the event")
                }
                return
            }
            if pending == 0 { return }
            try await wait(&pause)
        }
    }

    /// The socket's pending error (read and cleared), 0 when none.
    private var pendingError: Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return 0 }
        return error
    }

    /// Bytes written and not read by the program yet.
    var unread: Int? {
        var count: Int32 = 0
        guard ioctl(descriptor, UInt(TIOCOUTQ), &count) == 0 else { return nil }
        return Int(count)
    }

    private var peerClosed: Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&poller, 1, 0) > 0 else { return false }
        return poller.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    /// Sleeps a little longer each time: programs usually read at once.
    private func wait(_ pause: inout Int) async throws(LineChannelError) {
        pause = min(max(pause * 2, 20), 5_000)
        do {
            try await Task.sleep(for: .microseconds(pause))
        } catch {
            throw LineChannelError(reason: "cancelled")
        }
    }

    /// Shuts the parent's end: the program reads end-of-file. The descriptor itself
    /// stays valid (a send under way fails cleanly) until the channel is released.
    func close() {
        guard closed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    deinit {
        Foundation.close(descriptor)
    }

    /// Closes the program's end in the parent (after the child has its copy).
    func closeChildEnd() {
        Foundation.close(childDescriptor)
    }
}

/// The program's input could not take a line.
struct LineChannelError: Error, Sendable {
    let reason: String
}
