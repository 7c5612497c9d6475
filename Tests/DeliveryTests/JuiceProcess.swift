import Foundation

/// A temporary directory with a config and a store, in which the built `juice`
/// binary runs as real processes.
final class JuiceWorkspace {
    let directory: TemporaryDirectory
    let configPath: String
    let storePath: String

    /// `subscribers` is the config's `subscribers` array as JSON text.
    init(subscribers: String, flushDeadlineSeconds: Double = 2) throws {
        directory = try TemporaryDirectory()
        configPath = directory.file("config.json")
        storePath = directory.file("juice.db")
        let config = #"{"initialStock": 100000, "flushDeadlineSeconds": \#(flushDeadlineSeconds), "subscribers": \#(subscribers)}"#
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
    }

    /// The `juice` executable built beside this test bundle.
    static let binary: String = {
        let beside: (URL?) -> String? = { $0?.deletingLastPathComponent().appendingPathComponent("juice").path }
        let selfPath = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let candidates: [String?] = [
            beside(Bundle.main.executableURL), beside(selfPath.map { URL(fileURLWithPath: $0) }), beside(Bundle.main.bundleURL),
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "juice"
    }()

    /// Starts `juice <arguments> --config … --store …`; output goes to files.
    func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments + ["--config", configPath, "--store", storePath, "--quiet"]
        process.environment = ["HOME": directory.path, "PATH": "/usr/bin:/bin", "LANG": "C"]
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
    func run(_ arguments: [String]) throws -> Int32 {
        let process = try start(arguments)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Everything every `juice` process wrote to stderr.
    var errors: String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasPrefix("stderr-") }.compactMap {
            try? String(contentsOfFile: directory.file($0), encoding: .utf8)
        }.joined()
    }
}
