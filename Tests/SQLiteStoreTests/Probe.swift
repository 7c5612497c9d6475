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

    /// Starts the probe; its standard error goes to `<name>.err` in `directory`.
    static func start(_ arguments: [String], in directory: TemporaryDirectory, name: String) throws -> RunningProgram {
        try Program(try executable().path, arguments).start(inputFile: "/dev/null", errorsTo: directory.file(name + ".err"))
    }
}
