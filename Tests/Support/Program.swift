import Foundation
import Locking
import Testing

/// What a finished program did: its exit status and everything it wrote.
package struct ProgramRun: Sendable {
    package let status: Int32
    /// Standard output's bytes, as written.
    package let output: [UInt8]
    /// Standard error's bytes, as written.
    package let errorOutput: [UInt8]

    package var stdout: String { String(decoding: output, as: UTF8.self) }
    package var stderr: String { String(decoding: errorOutput, as: UTF8.self) }

    /// Standard output parsed as one JSON value.
    package func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(output), options: [.fragmentsAllowed])
    }
}

/// A program to run as a child process of the tests: the one way tests start one.
package struct Program: Sendable {
    package var executable: String
    package var arguments: [String]
    /// `nil`: this process's environment.
    package var environment: [String: String]?
    /// `nil`: this process's working directory.
    package var directory: String?

    package init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.directory = directory
    }

    /// Runs it to its end with `input` as its standard input (none: `/dev/null`).
    /// Standard input, output and error are files in a temporary directory, so
    /// nothing waits on a pipe: not a program that writes a lot, nor one that reads
    /// slowly.
    package func run(input: [UInt8]? = nil) throws -> ProgramRun {
        let scratch = try TemporaryDirectory(prefix: "juice-program-")
        var inputFile = "/dev/null"
        if let input {
            inputFile = scratch.file("stdin")
            try Data(input).write(to: URL(fileURLWithPath: inputFile))
        }
        return try run(inputFile: inputFile, outputTo: scratch.file("stdout"), errorsTo: scratch.file("stderr"))
    }

    /// Runs it to its end with `inputFile` as its standard input; its output goes to
    /// the files `outputTo` and `errorsTo` (made or emptied), read once it has exited.
    package func run(inputFile: String, outputTo: String, errorsTo: String) throws -> ProgramRun {
        let process = process()
        let out = try Self.emptyFile(outputTo)
        let err = try Self.emptyFile(errorsTo)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputFile))
        try process.runAlone()
        reap(process)
        try out.close()
        try err.close()
        return ProgramRun(
            status: process.terminationStatus, output: Array(FileManager.default.contents(atPath: outputTo) ?? Data()),
            errorOutput: Array(FileManager.default.contents(atPath: errorsTo) ?? Data()))
    }

    /// Starts it without waiting. Standard input is `inputFile`, or a pipe the test
    /// writes with `type(_:)` when `inputFile` is nil; standard output is a pipe the
    /// test reads as it arrives; standard error goes to the file `errorsTo`.
    package func start(inputFile: String? = nil, errorsTo: String) throws -> RunningProgram {
        let process = process()
        let stdout = try closeOnExecPipe()
        process.standardOutput = stdout.write
        process.standardError = try Self.emptyFile(errorsTo)
        var stdin: (read: FileHandle, write: FileHandle)?
        if let inputFile {
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputFile))
        } else {
            stdin = try closeOnExecPipe()
            process.standardInput = stdin?.read
        }
        try process.runAlone()
        // The child has its copies: the pipes end with the process and with the test.
        try stdout.write.close()
        try stdin?.read.close()
        return RunningProgram(process: process, stdout: stdout.read, errPath: errorsTo, input: stdin?.write)
    }

    private func process() -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        return process
    }

    /// `path` made empty and opened for writing.
    private static func emptyFile(_ path: String) throws -> FileHandle {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
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
}

/// Runs `executable arguments…` to its end with `input` on its standard input.
package func runProgram(_ executable: String, _ arguments: [String], input: [UInt8]? = nil) throws -> ProgramRun {
    try Program(executable, arguments).run(input: input)
}

/// Every `Process` a test starts goes through this lock. Foundation on Linux learns a
/// child's exit from a socket pair whose one end only the child holds; a start closes
/// in its child every descriptor up to the highest open when it looked. Two starts at
/// once race: the pair another thread made a moment later is inherited by this child,
/// and then that other child's exit is never seen while this one runs (a test waiting
/// for a nats-server to stop waited for ever on a `juice deliver --follow` another
/// test had started). One start at a time closes that window.
private let startLock = Locked(())

extension Process {
    /// `run()`, never at the same time as another test's.
    package func runAlone() throws {
        try startLock.withLock { _ throws in try run() }
    }
}
