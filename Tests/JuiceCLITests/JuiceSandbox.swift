import Foundation
import JuiceTestSupport
import Testing

/// What one `juice` process did.
struct JuiceRun {
    let status: Int32
    let stdout: String
    let stderr: String

    /// stdout parsed as one JSON value.
    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
    }
}

/// A temporary HOME with its own XDG directories, store and working directory, in
/// which the built `juice` binary runs as a real process with an explicit environment.
final class JuiceSandbox {
    /// Removed with the sandbox.
    private let directory: TemporaryDirectory
    let root: String
    /// The store every run uses (through `JUICE_MAKER_STORE`).
    let storePath: String
    var environment: [String: String]

    init(language: String = "en_US.UTF-8") throws {
        directory = try TemporaryDirectory(prefix: "juice-cli-")
        root = directory.path
        try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
        storePath = root + "/state/juice-maker/test.sqlite"
        environment = [
            "HOME": root,
            "XDG_STATE_HOME": root + "/state",
            "XDG_CONFIG_HOME": root + "/config",
            "PATH": "/usr/bin:/bin",
            "LANG": language,
            "JUICE_MAKER_STORE": storePath,
        ]
    }

    /// The `juice` executable built beside this test bundle.
    static let binary = juiceExecutable

    /// Writes `text` to `name` in the sandbox and returns its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let path = root + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The store file's bytes, or `nil` if there is none.
    func storeBytes() -> Data? {
        FileManager.default.contents(atPath: storePath)
    }

    /// Runs `juice arguments…` in the sandbox's working directory, with no input, and
    /// waits for it.
    @discardableResult
    func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> JuiceRun {
        try run(arguments, inputFile: "/dev/null", environment: extra)
    }

    /// Runs `juice --json stock` and returns fruit id → quantity.
    func stock(_ extra: [String] = []) throws -> [String: Int] {
        let result = try run(["stock", "--json"] + extra)
        #expect(result.status == 0, "juice stock failed: \(result.stderr)")
        return (try result.json() as? [String: Int]) ?? [:]
    }
}
