import Dispatch
import Foundation
import Locking
import Synchronization

/// Ctrl-C as a request to stop, not a kill: while one of these lives, SIGINT only
/// raises a flag (and wakes a reader waiting in `LineInput`). The command that is
/// running finishes (an order or an apply is one transaction and is never cut in
/// half); the screen sees the flag at its next read and returns; the runner then
/// shuts down as usual: the bus drained, plugins stopped by their deadline.
///
/// SIGINT stays ignored after the screen returns: what follows is the bounded
/// shutdown, and a second Ctrl-C must not cut it short.
final class InterruptSignal: Sendable {
    private let requested = Atomic<Bool>(false)
    /// A pipe whose read end becomes readable on Ctrl-C, so `poll(2)` wakes at once;
    /// `nil` when no pipe could be made (readers then look at the flag every 100 ms).
    private let wake: (read: Int32, write: Int32)?
    /// The signal source, reached only through its lock (created, resumed and
    /// cancelled here).
    private let source: Locked<any DispatchSourceSignal>

    /// Starts catching SIGINT.
    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
            wake = (ends[0], ends[1])
        } else {
            wake = nil
        }
        signal(SIGINT, SIG_IGN)
        source = Locked(DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "juice.interrupt")))
        // The source is registered (on Linux, its handler installed) after `resume`
        // returns: until then SIGINT is ignored and lost. Waiting for the registration
        // means a Ctrl-C that comes once the command has started is not lost. (Bounded:
        // a registration that never came would only bring the old race back.)
        let registered = DispatchSemaphore(value: 0)
        source.withLock { source in
            source.setEventHandler { [weak self] in self?.request() }
            source.setRegistrationHandler { registered.signal() }
            source.resume()
        }
        _ = registered.wait(timeout: .now() + 5)
    }

    deinit {
        source.withLock { $0.cancel() }
        if let wake {
            close(wake.read)
            close(wake.write)
        }
    }

    /// Whether Ctrl-C was pressed (or SIGINT sent) since this began.
    var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// The descriptor that becomes readable on Ctrl-C, for `poll(2)`.
    var wakeDescriptor: Int32? { wake?.read }

    /// Raises the flag, then wakes the reader. The byte is never read back, so the
    /// descriptor stays readable: every later wait ends at once too.
    func request() {
        requested.store(true, ordering: .releasing)
        guard let wake else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }
}
