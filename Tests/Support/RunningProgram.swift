import Foundation
import Locking
import Testing

/// A program that keeps running (`juice watch`, a screen fed line by line, a
/// follower): its stdout comes through a pipe the test reads as it arrives, its stderr
/// goes to a file.
package final class RunningProgram: Sendable {
    package let process: Process
    private let errPath: String
    /// Where the test writes the process's standard input, when it was given a pipe.
    package let input: FileHandle?
    /// Standard output so far, and whether it has ended (the pipe's end of file);
    /// each arrival wakes `wait`.
    private let output = LockedCondition((bytes: Data(), ended: false))

    /// Starts reading `stdout` (the pipe's read end) on a thread of its own.
    init(process: Process, stdout: FileHandle, errPath: String, input: FileHandle?) {
        self.process = process
        self.errPath = errPath
        self.input = input
        let output = output
        Thread {
            // read(2), not `availableData`: Foundation's traps when a signal interrupts the
            // read (EINTR), and signals reach this process while tests send them to children.
            let descriptor = stdout.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                output.change { $0.bytes.append(contentsOf: buffer[0..<count]) }
            }
            try? stdout.close()
            output.change { $0.ended = true }
        }.start()
    }

    package var stdout: String { output.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
    package var stderr: String { String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self) }

    /// Sends `text` to the process's standard input.
    package func type(_ text: String) throws {
        try input?.write(contentsOf: Data(text.utf8))
    }

    /// Waits until `condition(stdout)` holds, or stdout ends (the process is gone),
    /// or `limit` passes. Woken by each arrival on the pipe, not a poll. The limit is a
    /// safety net against a hang, not a speed requirement.
    @discardableResult
    package func wait(until condition: (String) -> Bool, limit: Duration = .seconds(30)) -> Bool {
        _ = output.wait(until: .now + limit) { $0.ended || condition(String(decoding: $0.bytes, as: UTF8.self)) }
        return condition(stdout)
    }

    /// Sends SIGINT (Ctrl-C) and waits for the exit status.
    /// Standard input stays open until the process has exited, so the interrupt, not
    /// the end of input, is what ends it.
    package func interrupt() -> Int32 {
        process.interrupt()
        reap(process)
        try? input?.close()
        waitForEndOfOutput()
        return process.terminationStatus
    }

    /// Closes standard input (if piped) and waits for the exit status.
    package func finish() -> Int32 {
        try? input?.close()
        reap(process)
        waitForEndOfOutput()
        return process.terminationStatus
    }

    /// Stops it (SIGTERM, SIGKILL after `seconds`) off the cooperative pool, and waits
    /// for its exit and the end of its output; its status.
    package func terminated(within seconds: Double = 5) async -> Int32 {
        await JuiceTestSupport.terminated(process, within: seconds)
        return await finished()
    }

    /// `finish()`, off the cooperative pool.
    package func finished() async -> Int32 {
        (try? await offPool { self.finish() }) ?? -1
    }

    /// After the exit: waits for the rest of stdout (the pipe ends when the process's
    /// copy of it closes; only a hang reaches the limit).
    private func waitForEndOfOutput() {
        _ = output.wait(until: .now + .seconds(30)) { $0.ended }
    }
}

/// Runs `body` on a thread of its own and waits for it without holding one of Swift's
/// cooperative threads: tests that wait for processes and servers for seconds would
/// otherwise hold the pool (as wide as the machine has cores) that every other test
/// shares.
package func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }.start()
    }
}

/// Whether `process` exits within `limit`; the exit is waited for on a thread of its
/// own and signalled, not polled. It is not stopped when it does not.
package func exits(_ process: Process, within limit: Duration) -> Bool {
    let exit = DispatchSemaphore(value: 0)
    Thread {
        process.waitUntilExit()
        exit.signal()
    }.start()
    return exit.wait(timeout: TimeSpan(limit).deadline(after: .now())) == .success
}

/// Waits for `process` to exit, at most `limit` (only a hang reaches that, and the
/// process is then killed), off the cooperative pool; returns whether it exited by itself.
package func waitForExit(_ process: Process, within limit: Duration = .seconds(10)) async -> Bool {
    let exited = (try? await offPool { exits(process, within: limit) }) ?? false
    if !exited {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
    return exited
}

/// Waits for `process` to exit, off the cooperative pool.
package func exited(_ process: Process) async {
    _ = try? await offPool { process.waitUntilExit() }
}

/// How long a test waits for a child process that should exit by itself before it
/// kills it: far beyond any working run, even under ThreadSanitizer; only a hang reaches
/// it, and the test then fails instead of stopping the whole run.
package let hangLimit = Duration.seconds(600)

/// Waits for `process` to exit. One that has not exited after `limit` hangs: it is
/// killed (SIGKILL), the test records an issue that says so, and the wait ends.
package func reap(_ process: Process, within limit: Duration = hangLimit, sourceLocation: SourceLocation = #_sourceLocation) {
    guard !exits(process, within: limit) else { return }
    let arguments = (process.arguments ?? []).joined(separator: " ")
    let name = process.executableURL?.lastPathComponent ?? "a process"
    Issue.record("\(name) \(arguments) did not exit within \(limit); killed", sourceLocation: sourceLocation)
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
}

/// Stops `process` (SIGTERM, SIGKILL after `seconds`) and waits for it.
package func terminate(_ process: Process, within seconds: Double = 5) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGTERM)
    if !exits(process, within: .milliseconds(Int64(seconds * 1000))) { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}

/// `terminate`, off the cooperative pool.
package func terminated(_ process: Process, within seconds: Double = 5) async {
    _ = try? await offPool { terminate(process, within: seconds) }
}
