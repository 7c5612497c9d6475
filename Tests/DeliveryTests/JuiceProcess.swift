import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Locking

/// A temporary directory with a config and a store, in which the built `juice`
/// binary runs as real processes.
final class JuiceWorkspace {
    let directory: TemporaryDirectory
    let configPath: String
    let storePath: String
    /// More environment for the `juice` processes started from now on.
    var extraEnvironment: [String: String] = [:]

    /// `subscribers` is the config's `subscribers` array as JSON text;
    /// `backgroundDelivery` is the config's key of that name.
    init(subscribers: String, flushDeadlineSeconds: Double = 2, backgroundDelivery: Bool = true) throws {
        directory = try TemporaryDirectory()
        storePath = directory.file("juice.db")
        configPath = try Self.writeConfig(
            directory.file("config.json"), subscribers: subscribers, flushDeadlineSeconds: flushDeadlineSeconds,
            backgroundDelivery: backgroundDelivery)
    }

    /// Another config in the workspace (for `start(_:config:)`); returns its path.
    func config(_ name: String, subscribers: String, flushDeadlineSeconds: Double = 2) throws -> String {
        try Self.writeConfig(directory.file(name), subscribers: subscribers, flushDeadlineSeconds: flushDeadlineSeconds)
    }

    private static func writeConfig(
        _ path: String, subscribers: String, flushDeadlineSeconds: Double, backgroundDelivery: Bool = true
    ) throws -> String {
        let config =
            #"{"initialStock": 100000, "flushDeadlineSeconds": \#(flushDeadlineSeconds), "backgroundDelivery": \#(backgroundDelivery), "#
            + #""subscribers": \#(subscribers)}"#
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The `juice` executable built beside this test bundle.
    static let binary = juiceExecutable

    /// Starts `juice <arguments> --config … --store …` (the workspace's config unless
    /// `config` names another); output goes to files.
    func start(_ arguments: [String], config: String? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments + ["--config", config ?? configPath, "--store", storePath, "--quiet"]
        process.environment = ["HOME": directory.path, "PATH": "/usr/bin:/bin", "LANG": "C"].merging(extraEnvironment) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = FileHandle.nullDevice
        let log = directory.file("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        return process
    }

    /// Runs `juice <arguments>` to the end; returns its exit status.
    @discardableResult
    func run(_ arguments: [String], config: String? = nil) throws -> Int32 {
        let process = try start(arguments, config: config)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The sequences of every event in the store's journal, through `juice events --json`.
    func journalSequences() throws -> [Int64] {
        try events(["--limit", "100000"]).map(\.sequence)
    }

    /// The ids of the store's juiceMade events, through `juice events --json`.
    func juiceMadeIDs() throws -> [String] {
        try events(["--type", "juiceMade", "--limit", "100000"]).map { $0.id.description }
    }

    /// `juice subscribers --json`: one row per subscriber.
    func subscriberRows() throws -> [[String: Any]] {
        let listing = directory.file("subscribers-\(UUID().uuidString).json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["subscribers", "--json", "--config", configPath, "--store", storePath]
        _ = FileManager.default.createFile(atPath: listing, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: listing)
        try process.run()
        process.waitUntilExit()
        return try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: listing))) as? [[String: Any]] ?? []
    }

    /// `juice events --json` with `options`, decoded.
    private func events(_ options: [String]) throws -> [EventEnvelope] {
        let output = directory.file("events.json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["events", "--json"] + options + ["--config", configPath, "--store", storePath]
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: output)
        try process.run()
        process.waitUntilExit()
        let text = try String(contentsOfFile: output, encoding: .utf8)
        return try text.split(separator: "\n").map { try CloudEventFormat.decode(String($0)) }
    }

    /// Everything every `juice` process wrote to stderr.
    var errors: String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasPrefix("stderr-") }.compactMap {
            try? String(contentsOfFile: directory.file($0), encoding: .utf8)
        }.joined()
    }
}

/// Waits for `process` to exit, at most `limit` (only a hang reaches that, and
/// the process is then killed); returns whether it exited by itself. The exit is
/// waited for on threads of their own and signalled, not polled.
func waitForExit(_ process: Process, within limit: Duration = .seconds(10)) async -> Bool {
    let exit = DispatchSemaphore(value: 0)
    Thread {
        process.waitUntilExit()
        exit.signal()
    }.start()
    let exited = await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: exit.wait(timeout: TimeSpan(limit).deadline(after: .now())) == .success) }.start()
    }
    if !exited {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
    return exited
}
