#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking
import Spawning

/// A long-running program fed one CloudEvents JSON line per event on its stdin: the
/// command subscriber's destination.
///
/// - Started on the first event it must take, then kept running.
/// - A line counts as delivered once the program has read all of it from its input
///   (not merely once it was queued), so a line sent to a program that exits
///   before reading it is sent again to the next one.
/// - When the program exits, the exit is reported and the next event restarts it,
///   after a pause that doubles with each quick exit (0.1 s up to 30 s) and resets
///   once a run lasts `stableRun`.
/// - A program that has not read a line `timeout` after it was written fails that
///   attempt (retried on the schedule) and is killed, so the retry goes to a fresh one.
/// - Its stderr is reported line by line, bounded (`StandardErrorRelay`); its stdout is discarded.
/// - Every blocking step (the restart pause, writing, waiting for the program to
///   read) runs on the program's own serial queue, never on the cooperative pool;
///   `cancelSends` ends it at once.
final class SupervisedProgram: DurableDestination {
    static let firstPause = Duration.milliseconds(100)
    static let longestPause = Duration.seconds(30)
    /// A run at least this long resets the restart pause.
    static let stableRun = Duration.seconds(10)
    /// How long before the deadline a program still running gets SIGTERM.
    static let terminationGrace = Duration.milliseconds(300)
    private static let shuttingDown = PluginMessage(english: "shutting down", korean: "종료하는 중입니다")

    let arguments: [String]
    let environment: [String: String]
    let workingDirectory: String?
    /// How long the program may take to read one line.
    let timeout: Duration
    private let name: String
    private let report: @Sendable (PluginMessage) -> Void
    /// Woken when the program is stopped or an attempt cancelled (the restart pause waits on it).
    private let state = LockedCondition(State())
    /// Where writes and waits for the program happen, one at a time.
    private let io: DispatchQueue
    /// The stderr relays still reading: `stop` waits for them, so every line a program
    /// wrote (or the count of those cut) is reported before it returns.
    private let relays = RunningCount()

    private struct State {
        var process: ChildProcess?
        var channel: LineChannel?
        var exit: ProgramExit?
        var startedAt = ContinuousClock.now
        var nextStart = ContinuousClock.now
        var pause = SupervisedProgram.firstPause
        var closed = false
        var cancelledAttempts: UInt64 = 0
        var attempts: UInt64 = 0
    }

    init(
        name: String, arguments: [String], environment: [String: String], workingDirectory: String?,
        timeout: Duration, report: @escaping @Sendable (PluginMessage) -> Void
    ) {
        self.name = name
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.timeout = timeout
        self.report = report
        io = DispatchQueue(label: "CommandPlugin.program.\(name)")
    }

    var displayName: String { arguments.first.map { PathText.lastComponent(of: $0) } ?? "?" }

    /// One event at a time, in journal order.
    var intake: DeliveryIntake { .window(1) }

    /// Writes each event's line on `io` and answers it once the program has read it.
    func send(_ offer: DeliveryOffer) {
        for (position, event) in zip(0..., offer.events) {
            let line = Array((CloudEventFormat.encode(event.envelope) + "\n").utf8)
            let attempt = state.withLock { state -> UInt64 in
                state.attempts &+= 1
                return state.attempts
            }
            io.async { [self] in
                do throws(DeliveryFailure) {
                    try send(line, attempt: attempt)
                    offer.answer(position, .accepted)
                } catch {
                    offer.answer(position, error.answer)
                }
            }
        }
    }

    /// Ends the attempts under way: the one writing or waiting for the program to read
    /// is interrupted, and those queued fail at once.
    func cancelSends() {
        let channel = state.change { state -> LineChannel? in
            state.cancelledAttempts = max(state.cancelledAttempts, state.attempts)
            return state.channel
        }
        channel?.interrupt()
    }

    /// On `io`: waits out the restart pause, starts the program if needed, sends `line`.
    private func send(_ line: [UInt8], attempt: UInt64) throws(DeliveryFailure) {
        let isCancelled: (borrowing State) -> Bool = { $0.closed || $0.cancelledAttempts >= attempt }
        let restartAt = state.withLock { $0.channel == nil ? $0.nextStart : nil }
        if let restartAt {
            _ = state.wait(until: restartAt, for: isCancelled)
        }
        let existing = state.withLock { state -> (LineChannel?, Bool) in (state.channel, isCancelled(state)) }
        if existing.1 { throw DeliveryFailure(LineChannelError.cancelled.reason) }
        let channel: LineChannel
        if let running = existing.0 { channel = running } else { channel = try start() }
        // A cancel that came before the channel was known interrupts it now.
        if state.withLock({ isCancelled($0) }) { channel.interrupt() }
        do throws(LineChannelError) {
            try channel.send(line, timeout: timeout)
        } catch {
            if error.timedOut { abandon(channel) }
            throw DeliveryFailure(
                PluginMessage(
                    english: "\(displayName): \(error.reason.english)", korean: "\(displayName): \(error.reason.korean)"))
        }
    }

    /// Kills a program that did not read its line in time; the next event starts a new one.
    private func abandon(_ channel: LineChannel) {
        let process = state.withLock { state -> ChildProcess? in
            guard state.channel === channel else { return nil }
            return state.process
        }
        if let process {
            let within = RetrySchedule.message(seconds: TimeSpan(timeout).totalSeconds)
            report(
                PluginMessage(
                    english: "\(displayName) did not read its input within \(within.english); it is stopped and restarted for the next attempt",
                    korean: "\(displayName)이(가) \(within.korean) 안에 입력을 읽지 않았습니다. 멈추고 다음 시도 때 다시 시작합니다"))
            process.send(SIGKILL)
        }
    }

    private func start() throws(DeliveryFailure) -> LineChannel {
        let channel: LineChannel
        do { channel = try LineChannel() } catch { throw DeliveryFailure(error.reason) }
        let process = ChildProcess()
        // The program's stderr: close-on-exec, so no other program started meanwhile keeps it.
        var errors: [Int32] = [-1, -1]
        guard pipe(&errors) == 0 else {
            let reason = String(cString: strerror(errno))
            channel.closeChildEnd()
            throw DeliveryFailure(
                PluginMessage(
                    english: "cannot start \(arguments[0]): \(reason)", korean: "\(arguments[0])을(를) 시작할 수 없습니다: \(reason)"))
        }
        for end in errors { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let exit = ProgramExit()
        let refused = state.withLock { state -> Bool in
            if state.closed { return true }
            state.process = process
            state.channel = channel
            state.exit = exit
            state.startedAt = .now
            return false
        }
        if refused {
            channel.closeChildEnd()
            close(errors[0])
            close(errors[1])
            throw DeliveryFailure(Self.shuttingDown)
        }
        var launch = ProgramLaunch(executable: arguments[0], arguments: Array(arguments.dropFirst()), environment: environment)
        launch.workingDirectory = workingDirectory
        launch.standardInput = .descriptor(channel.childDescriptor)
        launch.standardError = .descriptor(errors[1])
        // A group of its own, so what the program starts ends with it.
        launch.leadsProcessGroup = true
        do throws(SpawnError) {
            try process.run(launch) { [self] process, termination in
                exited(process, termination)
                exit.signal()
            }
        } catch {
            state.withLock { state in
                state.process = nil
                state.channel = nil
                state.exit = nil
                state.nextStart = .now + state.pause
                state.pause = min(state.pause * 2, Self.longestPause)
            }
            channel.closeChildEnd()
            close(errors[0])
            close(errors[1])
            throw DeliveryFailure(
                PluginMessage(
                    english: "cannot start \(arguments[0]): \(error.description)",
                    korean: "\(arguments[0])을(를) 시작할 수 없습니다: \(error.description)"))
        }
        channel.closeChildEnd()
        close(errors[1])
        forwardLines(of: errors[0])
        // `stop` may have run between the check above and `run()`, seen a program not
        // yet running and left it: a program must never outlive its subscriber.
        if state.withLock({ $0.closed }) {
            process.send(SIGKILL)
            throw DeliveryFailure(Self.shuttingDown)
        }
        return channel
    }

    private func exited(_ process: ChildProcess, _ termination: Termination) {
        let (closing, pause) = state.withLock { state -> (Bool, Duration) in
            guard state.process === process else { return (true, .zero) }
            state.process = nil
            state.channel = nil
            state.exit = nil
            if ContinuousClock.now - state.startedAt >= Self.stableRun { state.pause = Self.firstPause }
            let pause = state.pause
            state.nextStart = .now + pause
            state.pause = min(state.pause * 2, Self.longestPause)
            return (state.closed, pause)
        }
        // The channel is left to the sender, which sees the program gone and whether
        // it read the last line.
        guard !closing else { return }
        let status = termination.status
        let killed = termination.killedBySignal
        let next = RetrySchedule.message(seconds: TimeSpan(pause).totalSeconds)
        report(
            PluginMessage(
                english:
                    "\(displayName) \(killed ? "was killed by signal \(status)" : "exited with status \(status)"); it restarts for the next event in \(next.english)",
                korean: "\(displayName)이(가) \(killed ? "시그널 \(status)로 종료되었습니다" : "상태 \(status)로 끝났습니다"). \(next.korean) 뒤 다음 이벤트 때 다시 시작합니다"))
    }

    /// Reports what the program writes to stderr, on a thread of its own (`StandardErrorRelay`).
    private func forwardLines(of descriptor: Int32) {
        let relay = StandardErrorRelay(program: displayName, report: report)
        relays.begin()
        startDetachedThread(named: "juice.command.stderr") { [relays] in
            relay.run(descriptor)
            relays.end()
        }
    }

    /// Closes the program's input (it reads end-of-file) and lets it exit; shortly
    /// before `deadline` sends SIGTERM, and at `deadline` SIGKILL, so the program never
    /// outlives `juice`. Nothing starts after this. Then, by `deadline`, waits for
    /// what the programs wrote to stderr to be reported to its end (with the count of
    /// lines cut). Waits on the program's exit and the relays' ends, not in a loop.
    func stop(deadline: ContinuousClock.Instant) async {
        let (process, channel, exit) = state.change { state in
            state.closed = true
            return (state.process, state.channel, state.exit)
        }
        if let channel {
            channel.interrupt()
            io.async { channel.closeInput() }
        }
        if let process, let exit {
            if await !exit.wait(until: deadline - Self.terminationGrace) {
                process.terminate()
                if await !exit.wait(until: deadline) { process.send(SIGKILL) }
            }
        }
        // The program's group is gone with it, so its stderr reaches its end.
        _ = await relays.waitUntilNone(until: deadline)
    }
}

/// How many of something are running, to wait until none is: `begin` and `end` around
/// each; `waitUntilNone` returns `true` once the count is zero, `false` at its deadline.
final class RunningCount: Sendable {
    private let count = Locked(0)
    private let waiters = AsyncWaiters<Int>()

    func begin() { count.withLock { $0 += 1 } }

    func end() {
        count.withLock { count in
            count -= 1
            waiters.resumeSatisfied(by: count)
        }
    }

    func waitUntilNone(until deadline: ContinuousClock.Instant) async -> Bool {
        await waiters.wait(until: deadline, current: { count.withLock { $0 == 0 } }, for: { $0 == 0 })
    }
}

/// A program's exit as something to wait for: `signal` once it has exited; `wait`
/// returns at that, or at its deadline.
final class ProgramExit: Sendable {
    private let exited = Locked(false)
    private let waiters = AsyncWaiters<Bool>()

    func signal() {
        exited.withLock { exited in
            exited = true
            waiters.resumeSatisfied(by: true)
        }
    }

    /// Whether the program exited by `deadline`.
    func wait(until deadline: ContinuousClock.Instant) async -> Bool {
        await waiters.wait(until: deadline, current: { exited.withLock { $0 } }, for: { $0 })
    }
}
