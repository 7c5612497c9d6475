import Foundation
import Testing

/// A `juice` process that keeps running (`watch`, a screen fed line by line): its
/// stdout and stderr go to files the test reads while it runs.
final class RunningJuice {
    let process: Process
    private let outPath: String
    private let errPath: String
    /// Where the test writes the process's standard input, when it was given a pipe.
    let input: FileHandle?

    init(process: Process, outPath: String, errPath: String, input: FileHandle?) {
        self.process = process
        self.outPath = outPath
        self.errPath = errPath
        self.input = input
    }

    var stdout: String { String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self) }
    var stderr: String { String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self) }

    /// Sends `text` to the process's standard input.
    func type(_ text: String) throws {
        try input?.write(contentsOf: Data(text.utf8))
    }

    /// Waits until `condition(stdout)` holds, or the process ends, or `limit` passes.
    /// The limit is a safety net against a hang, not a speed requirement.
    @discardableResult
    func wait(until condition: (String) -> Bool, limit: Duration = .seconds(30)) -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition(stdout) { return true }
            if !process.isRunning { return condition(stdout) }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition(stdout)
    }

    /// Sends SIGINT (Ctrl-C) and waits for the exit status.
    /// Standard input stays open until the process has exited, so the interrupt, not
    /// the end of input, is what ends it.
    func interrupt() -> Int32 {
        process.interrupt()
        process.waitUntilExit()
        try? input?.close()
        return process.terminationStatus
    }

    /// Closes standard input (if piped) and waits for the exit status.
    func finish() -> Int32 {
        try? input?.close()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension JuiceSandbox {
    /// Runs `juice arguments…` with `input` as its standard input (a file, as
    /// `printf '7\nq\n' | juice shell` gives it) and waits for it.
    @discardableResult
    func run(_ arguments: [String], input: String) throws -> JuiceRun {
        let inputPath = try write(input, to: "input-\(UUID().uuidString)")
        let running = try start(arguments, inputFile: inputPath)
        let status = running.finish()
        return JuiceRun(status: status, stdout: running.stdout, stderr: running.stderr)
    }

    /// Starts `juice arguments…` without waiting. Standard input is `inputFile`, or
    /// a pipe the test writes with `type(_:)` when `inputFile` is nil.
    func start(_ arguments: [String], inputFile: String? = nil, executable: String = JuiceSandbox.binary) throws -> RunningJuice {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: root + "/work")
        let id = UUID().uuidString
        let outPath = root + "/stdout-\(id)"
        let errPath = root + "/stderr-\(id)"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        var writer: FileHandle?
        if let inputFile {
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputFile))
        } else {
            let pipe = Pipe()
            process.standardInput = pipe
            writer = pipe.fileHandleForWriting
        }
        try process.run()
        return RunningJuice(process: process, outPath: outPath, errPath: errPath, input: writer)
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
