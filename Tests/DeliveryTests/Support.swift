import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking

/// Collects what plugins report through `PluginHost.reportError`.
final class ErrorRecorder: Sendable {
    private let messages = Locked<[PluginMessage]>([])
    func report(_ message: PluginMessage) { messages.withLock { $0.append(message) } }
    /// Every report in English.
    var all: [String] { messages.withLock { $0.map(\.english) } }
    /// Every report in Korean.
    var korean: [String] { messages.withLock { $0.map(\.korean) } }
}

/// A `TextSink` that keeps every write.
final class RecordingSink: TextSink {
    let isTerminal = false
    private let writes = Locked<[String]>([])
    func write(_ text: String) { writes.withLock { $0.append(text) } }
    var text: String { writes.withLock { $0.joined() } }
}

/// A fresh directory under the system's temporary directory, removed on deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/juice-delivery-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}

/// A maker over an in-memory store, with a host whose errors are recorded.
struct Rig {
    let store = InMemoryStore(initialStock: Stock(repeating: 1_000))
    let maker: JuiceMaker
    let errors = ErrorRecorder()
    let output = RecordingSink()

    init() {
        maker = JuiceMaker(store: store)
    }

    var host: PluginHost {
        let errors = errors
        return PluginHost(maker: maker, journal: store, reportError: { errors.report($0) })
    }

    func context(name: String = "hook", stateDirectory: String = "/nonexistent") -> PluginContext {
        PluginContext(
            name: name, language: .english, colorAllowed: false, stateDirectory: stateDirectory,
            environment: [:], standardOutput: output, standardError: output)
    }

    func journal() throws -> [EventEnvelope] { try store.events(after: 0, limit: Int.max) }
}

/// A config section at `subscribers[0]`.
func section(_ values: [(key: String, value: ConfigValue)]) -> PluginConfiguration {
    PluginConfiguration(path: "subscribers[0]", values: values)
}

/// Polls `condition` until it holds or a generous bound passes (only a hang reaches
/// it); returns whether it held. Not a timing assertion.
func eventually(within seconds: Double = 30, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try condition()
}

/// A deadline far enough away that only a hang would reach it.
func generousDeadline() -> ContinuousClock.Instant { .now + .seconds(30) }

/// Runs a program and returns its standard output.
func run(_ executable: String, _ arguments: [String], input: [UInt8]? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let inputPipe = Pipe()
    process.standardOutput = output
    process.standardInput = inputPipe
    try process.run()
    if let input { inputPipe.fileHandleForWriting.write(Data(input)) }
    try inputPipe.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
