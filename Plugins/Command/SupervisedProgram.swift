import Foundation
import JuiceMakerCore
import Locking

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
/// - Its stderr is reported line by line; its stdout is discarded.
final class SupervisedProgram: DurableDestination {
    static let firstPause = 0.1
    static let longestPause = 30.0
    /// A run at least this long resets the restart pause.
    static let stableRun = 10.0

    let arguments: [String]
    let environment: [String: String]
    let workingDirectory: String?
    private let name: String
    private let report: @Sendable (String) -> Void
    private let state = Locked(State())

    private struct State {
        var process: Process?
        var channel: LineChannel?
        var startedAt = Date.distantPast
        var nextStart = Date.distantPast
        var pause = SupervisedProgram.firstPause
        var closed = false
    }

    init(
        name: String, arguments: [String], environment: [String: String], workingDirectory: String?,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.name = name
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.report = report
    }

    var displayName: String { arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "?" }

    func deliver(_ envelope: EventEnvelope) async throws(DeliveryFailure) {
        let channel = try await running()
        do {
            try await channel.send(Array((CloudEventFormat.encode(envelope) + "\n").utf8))
        } catch {
            throw DeliveryFailure("\(displayName): \(error.reason)")
        }
    }

    /// The running program's input, starting the program (after its restart pause) if needed.
    private func running() async throws(DeliveryFailure) -> LineChannel {
        let (channel, wait) = state.withLock { state -> (LineChannel?, Double) in
            (state.channel, state.nextStart.timeIntervalSinceNow)
        }
        if let channel { return channel }
        if wait > 0 {
            do { try await Task.sleep(for: .milliseconds(Int64(wait * 1000))) } catch { throw DeliveryFailure("cancelled") }
        }
        return try start()
    }

    private func start() throws(DeliveryFailure) -> LineChannel {
        let channel: LineChannel
        do { channel = try LineChannel() } catch { throw DeliveryFailure(error.reason) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        process.standardInput = FileHandle(fileDescriptor: channel.childDescriptor, closeOnDealloc: false)
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        process.terminationHandler = { [self] process in exited(process) }
        let refused = state.withLock { state -> Bool in
            if state.closed { return true }
            state.process = process
            state.channel = channel
            state.startedAt = Date()
            return false
        }
        if refused {
            channel.close()
            channel.closeChildEnd()
            throw DeliveryFailure("shutting down")
        }
        do {
            try process.run()
        } catch {
            state.withLock { state in
                state.process = nil
                state.channel = nil
                state.nextStart = Date().addingTimeInterval(state.pause)
                state.pause = min(state.pause * 2, Self.longestPause)
            }
            channel.close()
            channel.closeChildEnd()
            throw DeliveryFailure("cannot start \(arguments[0]): \(error.localizedDescription)")
        }
        channel.closeChildEnd()
        try? errors.fileHandleForWriting.close()
        forwardLines(of: errors.fileHandleForReading)
        // `stop` may have run between the check above and `run()`, seen a program not
        // yet running and left it: a program must never outlive its subscriber.
        if state.withLock({ $0.closed }) {
            kill(process.processIdentifier, SIGKILL)
            throw DeliveryFailure("shutting down")
        }
        return channel
    }

    private func exited(_ process: Process) {
        let (closing, pause) = state.withLock { state -> (Bool, Double) in
            guard state.process === process else { return (true, 0) }
            state.process = nil
            state.channel = nil
            if Date().timeIntervalSince(state.startedAt) >= Self.stableRun { state.pause = Self.firstPause }
            let pause = state.pause
            state.nextStart = Date().addingTimeInterval(pause)
            state.pause = min(state.pause * 2, Self.longestPause)
            return (state.closed, pause)
        }
        // The channel is left to the sender, which sees the program gone and whether
        // it read the last line.
        guard !closing else { return }
        let how = process.terminationReason == .uncaughtSignal
            ? "was killed by signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
        report("\(displayName) \(how); it restarts for the next event in \(RetrySchedule.describe(seconds: pause))")
    }

    /// Reports each line the program writes to stderr, on a thread of its own.
    private func forwardLines(of handle: FileHandle) {
        let program = displayName
        let report = report
        Thread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    report("\(program): \(line)")
                }
            }
            if !pending.isEmpty { report("\(program): \(String(decoding: pending, as: UTF8.self))") }
            try? handle.close()
        }.start()
    }

    /// Closes the program's input (it reads end-of-file) and lets it exit; shortly
    /// before `deadline` sends SIGTERM, and at `deadline` SIGKILL, so the program never
    /// outlives `juice`. Nothing starts after this.
    func stop(deadline: ContinuousClock.Instant) async {
        let (process, channel) = state.withLock { state in
            state.closed = true
            return (state.process, state.channel)
        }
        channel?.close()
        guard let process else { return }
        let politeUntil = deadline - Self.terminationGrace
        while process.isRunning, ContinuousClock.now < politeUntil {
            try? await Task.sleep(for: .milliseconds(5))
        }
        guard process.isRunning else { return }
        process.terminate()
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// How long before the deadline a program still running gets SIGTERM.
    static let terminationGrace = Duration.milliseconds(300)
}
