import Foundation
import Locking

/// A temporary HOME with its own XDG directories, store and working directory, in
/// which the built `juice` binary runs as a real process with an explicit
/// environment: the one way tests run `juice`.
///
/// Each run's standard error is kept in the sandbox (`errors` is all of it, in the
/// order the runs started); a config the sandbox was made with is named by `--config`
/// after every command's own arguments.
package final class JuiceSandbox: Sendable {
    /// How each run names the store.
    package enum StoreNaming: Sendable {
        /// `JUICE_MAKER_STORE` in the environment.
        case environment
        /// `--store` after the command's own arguments.
        case argument
        /// Neither: the config names it (`store.path`).
        case config
    }

    /// What the test calls the sandbox (a fleet machine's name), for its messages.
    package let name: String
    /// Removed with the sandbox.
    private let directory: TemporaryDirectory
    package let root: String
    /// The store every run uses.
    package let storePath: String
    /// The config every run names, when the sandbox was made with one.
    package let configPath: String?
    private let naming: StoreNaming
    /// After each command's own arguments, after `--config` and `--store`.
    private let trailingArguments: [String]
    private let settings: Locked<[String: String]>
    /// How many runs have started: each one's output files are numbered in order.
    private let runs = Locked(0)

    /// - Parameters:
    ///   - name: what the test calls it.
    ///   - language: `LANG` for every run.
    ///   - config: the text of `config.json` in the sandbox, named by every run.
    ///   - store: how every run names the store; `storeFile` is where, in the sandbox.
    ///   - arguments: more arguments every run ends with (`--quiet`).
    ///   - environment: more environment for every run.
    package init(
        name: String = "sandbox", language: String = "en_US.UTF-8", config: String? = nil, store: StoreNaming = .environment,
        storeFile: String = "state/juice-maker/test.sqlite", arguments: [String] = [], environment extra: [String: String] = [:]
    ) throws {
        self.name = name
        directory = try TemporaryDirectory(prefix: "juice-cli-")
        root = directory.path
        try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
        storePath = root + "/" + storeFile
        naming = store
        trailingArguments = arguments
        var environment = [
            "HOME": root,
            "XDG_STATE_HOME": root + "/state",
            "XDG_CONFIG_HOME": root + "/config",
            "PATH": "/usr/bin:/bin",
            "LANG": language,
        ]
        if store == .environment { environment["JUICE_MAKER_STORE"] = storePath }
        settings = Locked(environment.merging(extra) { $1 })
        let configFile = root + "/config.json"
        configPath = try config.map { try Self.write($0, to: configFile) }
    }

    /// The environment every run starts with.
    package var environment: [String: String] {
        get { settings.withLock { $0 } }
        set { settings.withLock { $0 = newValue } }
    }

    /// The `juice` executable built beside this test bundle.
    package static let binary = juiceExecutable

    /// The path of `name` in the sandbox.
    package func file(_ name: String) -> String { root + "/" + name }

    /// Writes `text` to `name` in the sandbox and returns its path.
    @discardableResult
    package func write(_ text: String, to name: String) throws -> String {
        try Self.write(text, to: file(name))
    }

    private static func write(_ text: String, to path: String) throws -> String {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The store file's bytes, or `nil` if there is none.
    package func storeBytes() -> Data? {
        FileManager.default.contents(atPath: storePath)
    }

    /// Runs `juice arguments…` in the sandbox's working directory, with no input, and
    /// waits for it. `config` names another config than the sandbox's.
    @discardableResult
    package func run(_ arguments: [String], environment extra: [String: String] = [:], config: String? = nil) throws -> ProgramRun {
        try run(arguments, inputFile: "/dev/null", environment: extra, config: config)
    }

    /// Runs `juice arguments…` with `input` as its standard input (a file, as
    /// `printf '7\nq\n' | juice shell` gives it) and waits for it.
    @discardableResult
    package func run(_ arguments: [String], input: String, environment extra: [String: String] = [:], config: String? = nil) throws -> ProgramRun {
        let inputPath = try write(input, to: "input-\(UUID().uuidString)")
        return try run(arguments, inputFile: inputPath, environment: extra, config: config)
    }

    /// Runs `juice arguments…` (or `executable`) with `inputFile` as its standard input
    /// and waits for it. Its output goes to files, read once it has exited: there is
    /// nothing to wait for meanwhile, and a process that writes a lot is never held up
    /// by a reader.
    package func run(
        _ arguments: [String], inputFile: String, environment extra: [String: String] = [:], config: String? = nil,
        executable: String = JuiceSandbox.binary
    ) throws -> ProgramRun {
        let number = nextRun()
        return try program(arguments, environment: extra, config: config, executable: executable)
            .run(inputFile: inputFile, outputTo: file("stdout-\(number)"), errorsTo: file("stderr-\(number)"))
    }

    /// `run(_:environment:config:)` (or with `input`) on a thread of its own, awaited:
    /// the test does not hold one of the cooperative pool's threads (as many as cores,
    /// two on the build machine) while the process runs, so the async tests running
    /// beside it keep their threads.
    @discardableResult
    package func running(
        _ arguments: [String], input: String? = nil, environment extra: [String: String] = [:], config: String? = nil
    ) async throws -> ProgramRun {
        try await offPool {
            if let input { return try self.run(arguments, input: input, environment: extra, config: config) }
            return try self.run(arguments, environment: extra, config: config)
        }
    }

    /// Starts `juice arguments…` (or `executable`) without waiting. Standard input is
    /// `inputFile`, or a pipe the test writes with `type(_:)` when `inputFile` is nil;
    /// standard output is a pipe the test reads as it arrives (see `RunningProgram`).
    package func start(
        _ arguments: [String], inputFile: String? = nil, environment extra: [String: String] = [:], config: String? = nil,
        executable: String = JuiceSandbox.binary
    ) throws -> RunningProgram {
        try program(arguments, environment: extra, config: config, executable: executable)
            .start(inputFile: inputFile, errorsTo: file("stderr-\(nextRun())"))
    }

    /// Everything every run wrote to stderr, in the order the runs started.
    package var errors: String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return files.filter { $0.hasPrefix("stderr-") }.sorted().compactMap {
            try? String(contentsOfFile: file($0), encoding: .utf8)
        }.joined()
    }

    /// `juice arguments…` (or `executable`), set to run in the sandbox's working
    /// directory with its environment and `extra`.
    private func program(_ arguments: [String], environment extra: [String: String], config: String?, executable: String) -> Program {
        var trailing: [String] = []
        if let config = config ?? configPath { trailing += ["--config", config] }
        if naming == .argument { trailing += ["--store", storePath] }
        return Program(
            executable, arguments + trailing + trailingArguments, environment: environment.merging(extra) { $1 }, directory: root + "/work")
    }

    /// The next run's number, zero-padded so that names sort in the order runs started.
    private func nextRun() -> String {
        let number = runs.withLock { count -> Int in
            defer { count += 1 }
            return count
        }
        let digits = String(number)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}
