import Dispatch
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
import Synchronization

/// SIGINT (Ctrl-C), SIGTERM (what service managers and `kill` send) and SIGHUP (the
/// terminal went away) as a request to stop, not a kill: while one of these lives,
/// each of them only raises a flag, wakes a reader waiting in `LineInput` and resumes
/// whoever awaits `requested()`. The change that is running finishes (an order or an
/// apply is one transaction and is never cut in half); the command sees the flag at
/// its next step and returns; the runner then shuts down as usual (the bus drained,
/// plugins stopped by their deadline: the logger flushed, durable subscribers leaving
/// what they did not deliver in the journal) and exits with 128 + the first signal
/// (`ExitCode.init(stoppedBy:)`).
///
/// The session starts one per run, for the commands that change the stock or follow
/// (`Session.stopSignals`), and it lives until the run has shut down: later signals
/// (a second Ctrl-C during the bounded shutdown) are noticed and ignored, and once its
/// sources are cancelled libdispatch's handler keeps them blocked until the exit.
///
/// How: one Dispatch signal source per signal. On Linux, libdispatch installs its
/// own `sigaction` handler, which only blocks the signal and hands it to a
/// `signalfd` on its manager thread; the event handler below runs on an ordinary
/// queue, so nothing here runs in signal context. `init` returns once that handler
/// is installed: before, a signal still has its default effect (the process ends,
/// as it did before the command started), never a silent loss.
final class StopSignals: Sendable {
    /// The signals that ask `juice` to stop.
    static let caught: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private struct Waiting {
        var nextID = 0
        /// Empty without a literal (start-up rule "empty collections without storage"):
        /// every command that catches signals makes it, though few ever wait.
        var continuations = [Int: CheckedContinuation<Void, Never>]()
    }

    /// The first signal received, 0 while none.
    private let first = Atomic<Int32>(0)
    /// A pipe whose read end becomes readable at the first signal, so `poll(2)` wakes
    /// at once; `nil` when no pipe could be made (readers then look at the flag
    /// every 100 ms).
    private let wake: (read: Int32, write: Int32)?
    /// The signal sources, reached only through their lock (created, resumed and
    /// cancelled here).
    private let sources: Locked<[any DispatchSourceSignal]>
    private let waiting = Locked(Waiting())
    /// With `reloadsOnHangUp`, each SIGHUP before a stop: what `juice deliver --follow`
    /// reloads its config on. Finished at the first stop.
    let reloads: AsyncStream<Void>
    private let reloadRequests: AsyncStream<Void>.Continuation
    private let reloadsOnHangUp: Bool

    /// Starts catching SIGINT, SIGTERM and SIGHUP, except one the process was started
    /// ignoring: `nohup juice deliver --follow` keeps running when the terminal closes,
    /// and a job a script put in the background keeps ignoring Ctrl-C.
    ///
    /// With `reloadsOnHangUp` (a daemon's convention), SIGHUP does not stop: each one
    /// arriving before a stop is handed to `reloads`.
    init(reloadsOnHangUp: Bool = false) {
        self.reloadsOnHangUp = reloadsOnHangUp
        (reloads, reloadRequests) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
            wake = (ends[0], ends[1])
        } else {
            wake = nil
        }
        let queue = DispatchQueue(label: "juice.stop")
        let numbers = Self.caught.filter { !Self.isIgnored($0) }
        sources = Locked(
            numbers.map { number in
                #if !os(Linux)
                // kqueue only reports a signal; without this its default action would end the process.
                signal(number, SIG_IGN)
                #endif
                return DispatchSource.makeSignalSource(signal: number, queue: queue)
            })
        sources.withLock { sources in
            for source in sources {
                let number = Int32(source.handle)
                source.setEventHandler { [weak self] in
                    guard let self else { return }
                    if number == SIGHUP, self.reloadsOnHangUp {
                        if !self.isRequested { self.reloadRequests.yield() }
                        return
                    }
                    self.request(number)
                }
                source.resume()
            }
        }
        #if os(Linux)
        Self.waitUntilHandled(numbers)
        #endif
    }

    deinit {
        sources.withLock { sources in
            for source in sources { source.cancel() }
        }
        if let wake {
            close(wake.read)
            close(wake.write)
        }
    }

    /// Whether a stop signal arrived since this began.
    var isRequested: Bool { first.load(ordering: .acquiring) != 0 }

    /// The first stop signal that arrived, if any.
    var received: Int32? {
        let number = first.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    /// The descriptor that becomes readable at the first stop signal, for `poll(2)`.
    var wakeDescriptor: Int32? { wake?.read }

    /// Returns once a stop signal has arrived (at once if one already has), or when
    /// the calling task is cancelled.
    func requested() async {
        let id = waiting.withLock { waiting -> Int in
            waiting.nextID += 1
            return waiting.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = waiting.withLock { waiting -> Bool in
                    if isRequested || Task.isCancelled { return true }
                    waiting.continuations[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            waiting.withLock { $0.continuations.removeValue(forKey: id) }?.resume()
        }
    }

    /// Records `number`, wakes the reader and resumes every waiter. The first signal
    /// counts, except that a SIGINT or SIGTERM replaces a SIGHUP: a hang-up only says
    /// the terminal went away, and the kernel hands over signals pending together
    /// lowest number first, so the SIGHUP a service manager sends right after its
    /// SIGTERM can arrive first. The wake byte is never read back, so the descriptor
    /// stays readable: every later wait ends at once too.
    func request(_ number: Int32) {
        var current: Int32 = 0
        while current == 0 || (current == SIGHUP && number != SIGHUP) {
            let (exchanged, found) = first.compareExchange(expected: current, desired: number, ordering: .acquiringAndReleasing)
            if exchanged { break }
            current = found
        }
        if let wake {
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
        let waiters = waiting.withLock { waiting -> [CheckedContinuation<Void, Never>] in
            defer { waiting.continuations.removeAll() }
            return Array(waiting.continuations.values)
        }
        for waiter in waiters { waiter.resume() }
        reloadRequests.finish()
    }

    /// The terminal went away without a SIGHUP (one not sent, or not yet arrived):
    /// the same stop as SIGHUP.
    func hangUp() {
        request(SIGHUP)
    }

    /// Whether the process ignores `number` (SIG_IGN, inherited from whoever started it).
    private static func isIgnored(_ number: Int32) -> Bool {
        handlerValue(number) == 1
    }

    /// The current disposition as a number: SIG_DFL is 0, SIG_IGN 1, anything else a handler.
    private static func handlerValue(_ number: Int32) -> Int {
        var current = sigaction()
        guard sigaction(number, nil, &current) == 0 else { return 0 }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
    }

    #if os(Linux)
    /// libdispatch registers a signal source on its manager thread, shortly after
    /// `resume()`; its `sigaction` handler is the sign that it did. Waits for it,
    /// for at most a second (a bound, not an expected time: it takes microseconds).
    private static func waitUntilHandled(_ numbers: [Int32]) {
        let deadline = ContinuousClock.now + .seconds(1)
        for number in numbers {
            while !hasHandler(number), ContinuousClock.now < deadline {
                // Not polling for an event: libdispatch sends none when its handler is in
                // place, so this looks, bounded by the deadline above.
                usleep(50)
            }
        }
    }

    private static func hasHandler(_ number: Int32) -> Bool {
        handlerValue(number) > 1
    }
    #endif
}
