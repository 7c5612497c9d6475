import Foundation
import JuiceTestSupport

/// Runs the `JuiceStoreProbe` executable, built beside the test bundle.
enum Probe {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The probe binary: in the build products directory, next to the test binary.
    static func executable() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        for directory in candidates {
            let url = directory.appendingPathComponent("JuiceStoreProbe")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw Failure(description: "JuiceStoreProbe not found beside \(candidates.map(\.path)); build with swift build --product JuiceStoreProbe")
    }

    /// Starts the probe with its output going to files in `directory`.
    static func start(_ arguments: [String], in directory: TemporaryDirectory, name: String) throws -> Process {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        _ = FileManager.default.createFile(atPath: directory.file(name + ".out"), contents: nil)
        _ = FileManager.default.createFile(atPath: directory.file(name + ".err"), contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: directory.file(name + ".out"))
        process.standardError = FileHandle(forWritingAtPath: directory.file(name + ".err"))
        try process.run()
        return process
    }

    /// What a finished probe printed.
    static func output(of name: String, in directory: TemporaryDirectory) -> (out: String, err: String) {
        let read = { (suffix: String) in
            String(decoding: contents(of: directory.file(name + suffix)) ?? Data(), as: UTF8.self)
        }
        return (read(".out"), read(".err"))
    }
}
