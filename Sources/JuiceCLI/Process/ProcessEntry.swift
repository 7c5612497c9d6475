import JuiceMakerPluginKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Foundation
#endif

/// The `juice` process as the thin executable (`Sources/juice/main.swift`) starts it:
/// the one door into the CLI library.
package enum JuiceProcess {
    /// Runs one command line with the real streams and returns the exit code.
    /// - Parameters:
    ///   - arguments: the words after `juice`.
    ///   - environment: the variables the process was started with.
    ///   - workingDirectory: the directory relative paths are taken from.
    ///   - undecodableArgument: the position (from 1) of the first argument that was
    ///     not valid UTF-8 (`firstUndecodableArgument()`), which is refused.
    package static func run(
        arguments: [String], environment: [String: String], workingDirectory: String, undecodableArgument: Int? = nil
    ) async -> Int32 {
        switch start(
            arguments: arguments, environment: environment, workingDirectory: workingDirectory,
            undecodableArgument: undecodableArgument)
        {
        case .finished(let code): return code
        case .pending(let run): return await run.finish()
        }
    }

    /// Does at once, without a task, what needs no config, store or plugin (usage
    /// errors, `--version`, `--help`, `config schema`); a command that does work is
    /// left `pending`, for the caller to `finish` in a task. The process awaits only
    /// then, so those answers never start the concurrency runtime's threads.
    package static func start(
        arguments: [String], environment: [String: String], workingDirectory: String, undecodableArgument: Int? = nil
    ) -> Started {
        let runner = Runner(
            arguments: arguments,
            environment: environment,
            workingDirectory: workingDirectory,
            standardOutput: FileSink.standardOutput(),
            standardError: FileSink.standardError(),
            registry: .standard,
            undecodableArgument: undecodableArgument)
        switch runner.start() {
        case .finished(let code): return .finished(code.rawValue)
        case .needsWork(let prepared): return .pending(PendingCommand(runner: runner, prepared: prepared))
        }
    }

    /// What `start` did: answered (the exit code), or left a command to run.
    package enum Started: Sendable {
        case finished(Int32)
        case pending(PendingCommand)
    }

    /// A command line whose command reads the config, the store or plugins.
    package struct PendingCommand: Sendable {
        let runner: Runner
        let prepared: Runner.Prepared

        /// Runs it; the exit code.
        package func finish() async -> Int32 { await runner.finish(prepared).rawValue }
    }

    /// This process's environment, read from `environ` (`environment(entries:)`). Not
    /// through `ProcessInfo` (start-up rule "Date only", the Performance article).
    package static func currentEnvironment() -> [String: String] {
        #if canImport(Glibc) || canImport(Musl)
        var entries: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            entries.append(String(cString: pointer))
            entry += 1
        }
        return environment(entries: entries)
        #else
        return ProcessInfo.processInfo.environment
        #endif
    }

    /// `NAME=value` entries as a dictionary: split at the first `=` (by byte, so a value
    /// that begins with a combining mark keeps it); an entry without `=` is skipped; of
    /// a repeated name the first counts, as `getenv` reads it (and so every C library
    /// `juice` loads).
    static func environment(entries: [String]) -> [String: String] {
        var environment = [String: String](minimumCapacity: entries.count)
        for text in entries {
            guard let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(text.utf8[..<equals]) ?? ""
            let value = String(text.utf8[text.utf8.index(after: equals)...]) ?? ""
            if environment[name] == nil { environment[name] = value }
        }
        return environment
    }

    /// The working directory (`getcwd`), or "" when it cannot be read (removed).
    package static func currentDirectory() -> String {
        #if canImport(Glibc) || canImport(Musl)
        guard let path = getcwd(nil, 0) else { return "" }
        defer { free(path) }
        return String(cString: path)
        #else
        return FileManager.default.currentDirectoryPath
        #endif
    }

    /// The position (from 1) of the first of this process's arguments that is not valid
    /// UTF-8, or nil. `CommandLine.arguments` has already replaced such bytes with U+FFFD.
    package static func firstUndecodableArgument() -> Int? {
        (1..<Int(CommandLine.argc)).first { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return false }
            return String(validatingCString: argument) == nil
        }
    }
}
