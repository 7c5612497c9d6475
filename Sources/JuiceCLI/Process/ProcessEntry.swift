import JuiceMakerPluginKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Foundation
#endif

/// The `juice` process: the one door into the CLI library, and its only public API.
///
/// `juice` is `JuiceProcess.main(plugins: JuiceProcess.builtInPlugins)`
/// (`Sources/juice/main.swift`); a package of its own builds a `juice` with its own
/// plugin types too by passing them as well (the kit's article "Writing a plugin").
public enum JuiceProcess {
    /// The plugin types shipped with JuiceMaker, in the order `juice` lists them:
    /// `logger`, `cli-notifier`, `webhook`, `command`, `nats`, `metrics`.
    public static var builtInPlugins: [PluginDeclaration] { PluginRegistry.standard.declarations }

    /// Runs `juice` with the plugin types `plugins` declare, on this process's
    /// arguments, environment and streams, and exits with the command's status.
    ///
    /// The config's subscribers may be of any type in `plugins`; `juice help config`,
    /// `juice config schema` and the completions list their keys. A background
    /// `juice deliver` runs this same executable. What needs no config, store or
    /// plugin (`--version`, `--help`, a usage error) is answered before the first
    /// suspension, so it never starts the concurrency runtime's threads.
    ///
    /// A list that cannot make a registry (two types of one name, a type without a
    /// name, a key declared twice or named `type`, `name` or `enabled`) is a mistake of
    /// the program: one line on stderr names it, and the process exits 70 (EX_SOFTWARE)
    /// before reading anything.
    @MainActor
    public static func main(plugins: [PluginDeclaration]) async -> Never {
        let registry: PluginRegistry
        do throws(PluginRegistry.ListError) {
            registry = try PluginRegistry(checking: plugins)
        } catch {
            FileSink.standardError().write("juice: \(error.description)\n")
            exit(PluginRegistry.ListError.exitCode)
        }
        let started = start(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: currentEnvironment(),
            workingDirectory: currentDirectory(), undecodableArgument: firstUndecodableArgument(), registry: registry)
        switch started {
        case .finished(let code): exit(code)
        case .pending(let command): exit(await command.finish())
        }
    }

    /// Does at once, without a task, what needs no config, store or plugin (usage
    /// errors, `--version`, `--help`, `config schema`); a command that does work is
    /// left `pending`, for the caller to `finish` in a task. The process awaits only
    /// then, so those answers never start the concurrency runtime's threads.
    static func start(
        arguments: [String], environment: [String: String], workingDirectory: String, undecodableArgument: Int?,
        registry: PluginRegistry
    ) -> Started {
        let runner = Runner(
            arguments: arguments,
            environment: environment,
            workingDirectory: workingDirectory,
            standardOutput: FileSink.standardOutput(),
            standardError: SecretFreeSink(FileSink.standardError()),
            registry: registry,
            undecodableArgument: undecodableArgument)
        switch runner.start() {
        case .finished(let code): return .finished(code.rawValue)
        case .needsWork(let prepared): return .pending(PendingCommand(runner: runner, prepared: prepared))
        }
    }

    /// What `start` did: answered (the exit code), or left a command to run.
    enum Started: Sendable {
        case finished(Int32)
        case pending(PendingCommand)
    }

    /// A command line whose command reads the config, the store or plugins.
    struct PendingCommand: Sendable {
        let runner: Runner
        let prepared: Runner.Prepared

        /// Runs it; the exit code.
        func finish() async -> Int32 { await runner.finish(prepared).rawValue }
    }

    /// This process's environment, read from `environ` (`environment(entries:)`). Not
    /// through `ProcessInfo` (start-up rule "Date only", the Performance article).
    static func currentEnvironment() -> [String: String] {
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
    static func currentDirectory() -> String {
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
    static func firstUndecodableArgument() -> Int? {
        (1..<Int(CommandLine.argc)).first { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return false }
            return String(validatingCString: argument) == nil
        }
    }
}
