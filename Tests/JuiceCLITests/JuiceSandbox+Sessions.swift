import Foundation
import Locking
import Testing

/// A `juice` process that keeps running (`watch`, a screen fed line by line): its
/// stdout comes through a pipe the test reads as it arrives, its stderr goes to a
/// file.
final class RunningJuice {
    let process: Process
    private let errPath: String
    /// Where the test writes the process's standard input, when it was given a pipe.
    let input: FileHandle?
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
            while true {
                let chunk = stdout.availableData
                if chunk.isEmpty { break }
                output.change { $0.bytes.append(chunk) }
            }
            try? stdout.close()
            output.change { $0.ended = true }
        }.start()
    }

    var stdout: String { output.withLock { String(decoding: $0.bytes, as: UTF8.self) } }
    var stderr: String { String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self) }

    /// Sends `text` to the process's standard input.
    func type(_ text: String) throws {
        try input?.write(contentsOf: Data(text.utf8))
    }

    /// Waits until `condition(stdout)` holds, or stdout ends (the process is gone),
    /// or `limit` passes. Woken by each arrival on the pipe, not a poll. The limit is a
    /// safety net against a hang, not a speed requirement.
    @discardableResult
    func wait(until condition: (String) -> Bool, limit: Duration = .seconds(30)) -> Bool {
        _ = output.wait(until: .now + limit) { $0.ended || condition(String(decoding: $0.bytes, as: UTF8.self)) }
        return condition(stdout)
    }

    /// Sends SIGINT (Ctrl-C) and waits for the exit status.
    /// Standard input stays open until the process has exited, so the interrupt, not
    /// the end of input, is what ends it.
    func interrupt() -> Int32 {
        process.interrupt()
        process.waitUntilExit()
        try? input?.close()
        waitForEndOfOutput()
        return process.terminationStatus
    }

    /// Closes standard input (if piped) and waits for the exit status.
    func finish() -> Int32 {
        try? input?.close()
        process.waitUntilExit()
        waitForEndOfOutput()
        return process.terminationStatus
    }

    /// After the exit: waits for the rest of stdout (the pipe ends when the process's
    /// copy of it closes; only a hang reaches the limit).
    private func waitForEndOfOutput() {
        _ = output.wait(until: .now + .seconds(30)) { $0.ended }
    }
}

extension JuiceSandbox {
    /// Runs `juice arguments…` with `input` as its standard input (a file, as
    /// `printf '7\nq\n' | juice shell` gives it) and waits for it.
    @discardableResult
    func run(_ arguments: [String], input: String) throws -> JuiceRun {
        let inputPath = try write(input, to: "input-\(UUID().uuidString)")
        return try run(arguments, inputFile: inputPath)
    }

    /// Runs `juice arguments…` with `inputFile` as its standard input and waits for it.
    /// Its output goes to files, read once it has exited: there is nothing to wait for
    /// meanwhile, and a process that writes a lot is never held up by a reader.
    func run(
        _ arguments: [String], inputFile: String, environment extra: [String: String] = [:], executable: String = JuiceSandbox.binary
    ) throws -> JuiceRun {
        let process = process(arguments, environment: extra, executable: executable)
        let (outPath, errPath) = (newFile("stdout"), newFile("stderr"))
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputFile))
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let stdout = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
        return JuiceRun(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// Starts `juice arguments…` (or `executable`) without waiting. Standard input is
    /// `inputFile`, or a pipe the test writes with `type(_:)` when `inputFile` is nil;
    /// standard output is a pipe the test reads as it arrives (see `RunningJuice`).
    func start(
        _ arguments: [String], inputFile: String? = nil, environment extra: [String: String] = [:],
        executable: String = JuiceSandbox.binary
    ) throws -> RunningJuice {
        let process = process(arguments, environment: extra, executable: executable)
        let errPath = newFile("stderr")
        let stdout = try closeOnExecPipe()
        process.standardOutput = stdout.write
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        var stdin: (read: FileHandle, write: FileHandle)?
        if let inputFile {
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputFile))
        } else {
            stdin = try closeOnExecPipe()
            process.standardInput = stdin?.read
        }
        try process.run()
        // The child has its copies: the pipes end with the process and with the test.
        try stdout.write.close()
        try stdin?.read.close()
        return RunningJuice(process: process, stdout: stdout.read, errPath: errPath, input: stdin?.write)
    }

    /// `juice arguments…` (or `executable`), set to run in the sandbox's working
    /// directory with its environment and `extra`.
    private func process(
        _ arguments: [String], environment extra: [String: String], executable: String = JuiceSandbox.binary
    ) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: root + "/work")
        return process
    }

    /// A new empty file in the sandbox for one stream of one process; its path.
    private func newFile(_ stream: String) -> String {
        let path = root + "/\(stream)-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return path
    }

    /// A pipe whose ends are close-on-exec at once, so a process another test starts a
    /// moment later does not inherit them (one that did would keep the pipe open, and
    /// the end of input or output would not come). The child gets its end through
    /// `dup2`, which clears the flag.
    private func closeOnExecPipe() throws -> (read: FileHandle, write: FileHandle) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (FileHandle(fileDescriptor: ends[0], closeOnDealloc: true), FileHandle(fileDescriptor: ends[1], closeOnDealloc: true))
    }

    /// The journal as CloudEvents objects (`juice events --json`), oldest first.
    func journal() throws -> [[String: Any]] {
        let result = try run(["events", "--json"])
        #expect(result.status == 0, "juice events failed: \(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}

/// Where `needle` first occurs in `text` (for asserting the order of a transcript).
func position(of needle: String, in text: String) -> String.Index? {
    text.range(of: needle)?.lowerBound
}

/// How many times `needle` occurs in `text`.
func occurrences(of needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}
