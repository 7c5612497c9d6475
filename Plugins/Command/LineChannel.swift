#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerPluginKit
import JuicePrimitives
import Locking

/// The parent's end of a program's standard input: a pipe shrunk to one page, so
/// the kernel itself says when the program has read everything written (the write
/// end polls writable only while the pipe is empty), and a wake-up pipe, so a
/// blocked `send` ends at once when it is interrupted.
///
/// `send` blocks its thread (never a task of the cooperative pool: the caller runs it
/// on a queue of its own). While it runs SIGPIPE is blocked on that thread, so a write
/// to a program that has exited fails with `EPIPE` instead of killing this process;
/// the pending signal is taken back before the thread's mask is restored.
/// `interrupt` may come from any thread, more than once; `closeInput` only from the
/// queue that sends (so a descriptor is never closed under a `send`). The
/// descriptors are closed when the last reference goes, if not before.
///
/// Portability: Linux is the tested platform. The one-page pipe (`F_SETPIPE_SZ`) and
/// `sigtimedwait` are Linux-only; on Darwin the write end is `F_SETNOSIGPIPE` (a
/// write to a program that has gone fails with `EPIPE`, no signal), a pending
/// SIGPIPE is taken with `sigpending` and `sigwait`, and as a pipe there cannot be
/// shrunk, writable means "has room", so a line counts as read once the pipe took it.
final class LineChannel: Sendable {
    /// The parent's end (non-blocking, close-on-exec).
    let descriptor: Int32
    /// The program's end, to hand to the child as its stdin; the parent closes it
    /// once the child has started.
    let childDescriptor: Int32
    /// Written to by `interrupt`; `send` watches the read end.
    private let wake: (read: Int32, write: Int32)
    private let state = Locked((closed: false, interrupted: false))

    init() throws(LineChannelError) {
        // Close-on-exec from the start: a program started meanwhile by another thread
        // must not inherit the read end (the pipe would never report its reader gone).
        var ends: [Int32] = [-1, -1]
        guard Self.makePipe(&ends) else { throw .cannotCreateInput(Self.lastError) }
        var wakeEnds: [Int32] = [-1, -1]
        guard Self.makePipe(&wakeEnds) else {
            close(ends[0])
            close(ends[1])
            throw .cannotCreateInput(Self.lastError)
        }
        for end in [ends[1], wakeEnds[0], wakeEnds[1]] { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        #if os(Linux)
        // One page (the least a pipe holds): a pipe with any unread byte is full.
        _ = fcntl(ends[1], Self.setPipeSize, Int32(getpagesize()))
        #elseif canImport(Darwin)
        _ = fcntl(ends[1], F_SETNOSIGPIPE, 1)
        #endif
        childDescriptor = ends[0]
        descriptor = ends[1]
        wake = (wakeEnds[0], wakeEnds[1])
    }

    /// A pipe whose ends are close-on-exec.
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// `F_SETPIPE_SZ` (Linux), which Glibc's module map leaves out.
    private static let setPipeSize: Int32 = 1031

    private static var lastError: String { String(cString: strerror(errno)) }

    /// Writes all of `bytes`, then waits until the program has read them all.
    /// Throws when the program closes its input or exits first (some of the bytes may
    /// then have been read), when `timeout` passes, or when `interrupt` is called.
    func send(_ bytes: [UInt8], timeout: Duration) throws(LineChannelError) {
        var previousMask = sigset_t()
        var blocked = Self.sigpipeSet
        pthread_sigmask(SIG_BLOCK, &blocked, &previousMask)
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        let deadline = ContinuousClock.now + timeout
        var offset = 0
        while true {
            if state.withLock({ $0.interrupted || $0.closed }) { throw .cancelled }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                let within = RetrySchedule.message(seconds: TimeSpan(timeout).totalSeconds)
                throw LineChannelError(
                    reason: PluginMessage(
                        english: "the program did not read the event within \(within.english)",
                        korean: "프로그램이 \(within.korean) 안에 이벤트를 읽지 않았습니다"),
                    timedOut: true)
            }
            var pollers = [
                pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
            ]
            let milliseconds = Int32(clamping: TimeSpan(left).millisecondsRoundedUp)
            let ready = poll(&pollers, 2, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready >= 0 else {
                throw LineChannelError(
                    reason: PluginMessage(
                        english: "cannot wait for the program's input: \(Self.lastError)",
                        korean: "프로그램의 입력을 기다릴 수 없습니다: \(Self.lastError)"))
            }
            if pollers[1].revents != 0 { throw .cancelled }
            let events = pollers[0].revents
            if events & Int16(POLLNVAL) != 0 { throw .inputClosed("") }
            if events & Int16(POLLOUT) != 0 {
                // Writable means empty: everything written so far has been read.
                if offset == bytes.count { return }
                let sent = bytes.withUnsafeBytes { buffer in
                    write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                }
                if sent > 0 { offset += sent; continue }
                let error = errno
                if sent < 0, error == EAGAIN || error == EINTR { continue }
                if error == EPIPE { Self.consumeSIGPIPE() }
                throw .inputClosed(" (\(String(cString: strerror(error))))")
            }
            if events & Int16(POLLERR | POLLHUP) != 0 {
                // The program closed its input or exited with bytes unread.
                throw offset == 0
                    ? .inputClosed("")
                    : LineChannelError(
                        reason: PluginMessage(
                            english: "the program closed its input or exited before it read the event",
                            korean: "프로그램이 이벤트를 읽기 전에 입력을 닫았거나 끝났습니다"))
            }
        }
    }

    /// Ends a `send` under way (and any later one) with "cancelled".
    func interrupt() {
        state.withLock { $0.interrupted = true }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Closes the parent's end: the program reads end-of-file. Call it on the queue
    /// that sends, after `interrupt` has ended a `send` under way.
    func closeInput() {
        guard
            state.withLock({ state -> Bool in
                defer { state.closed = true }; return !state.closed
            })
        else { return }
        close(descriptor)
    }

    deinit {
        closeInput()
        close(wake.read)
        close(wake.write)
    }

    /// Closes the program's end in the parent (after the child has its copy).
    func closeChildEnd() {
        close(childDescriptor)
    }

    /// Takes back the SIGPIPE a failed write left pending on this thread, before
    /// `send` restores the thread's signal mask.
    private static func consumeSIGPIPE() {
        var set = sigpipeSet
        #if os(Linux)
        var now = TimeSpan(.zero).relativeTimespec
        _ = sigtimedwait(&set, nil, &now)
        #else
        // No sigtimedwait: take the signal only when it is pending, so sigwait returns at once.
        var pending = sigset_t()
        guard sigpending(&pending) == 0, sigismember(&pending, SIGPIPE) == 1 else { return }
        var signal: Int32 = 0
        _ = sigwait(&set, &signal)
        #endif
    }

    private static var sigpipeSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        return set
    }
}

/// The program's input could not take a line.
struct LineChannelError: Error, Sendable {
    let reason: PluginMessage
    /// Whether the program simply did not read in time (it may still be running).
    var timedOut = false

    static let cancelled = LineChannelError(reason: PluginMessage(english: "cancelled", korean: "취소되었습니다"))

    static func cannotCreateInput(_ system: String) -> LineChannelError {
        LineChannelError(
            reason: PluginMessage(
                english: "cannot create the program's input: \(system)", korean: "프로그램의 입력을 만들 수 없습니다: \(system)"))
    }

    /// `detail` is empty or the system's reason in parentheses, with a leading space.
    static func inputClosed(_ detail: String) -> LineChannelError {
        LineChannelError(
            reason: PluginMessage(
                english: "the program's input is closed\(detail)", korean: "프로그램의 입력이 닫혔습니다\(detail)"))
    }
}
