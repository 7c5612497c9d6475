import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking

/// A `TextSink` that keeps every write, in order.
final class RecordingSink: TextSink {
    let isTerminal: Bool
    private let writes = Locked<[String]>([])

    init(isTerminal: Bool = false) {
        self.isTerminal = isTerminal
    }

    func write(_ text: String) {
        writes.withLock { $0.append(text) }
    }

    /// Every write, as written.
    var texts: [String] { writes.withLock { $0 } }

    /// Everything written, split into lines (without the trailing empty one).
    var lines: [String] { splitLines(texts.joined()) }
}

/// Collects what plugins report through `PluginHost.reportError`.
final class ErrorRecorder: Sendable {
    private let messages = Locked<[PluginMessage]>([])

    func report(_ message: PluginMessage) {
        messages.withLock { $0.append(message) }
    }

    /// Every report in English.
    var all: [String] { messages.withLock { $0.map(\.english) } }
    /// Every report in Korean.
    var korean: [String] { messages.withLock { $0.map(\.korean) } }
}

/// A fresh directory under the system's temporary directory, removed on deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/juice-plugin-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String { path + "/" + name }
}

/// A maker over an in-memory store, with a host whose errors are recorded.
struct Rig {
    let store: InMemoryStore
    let maker: JuiceMaker
    let errors = ErrorRecorder()
    let output: RecordingSink
    let standardError: RecordingSink

    init(stock: Stock = Stock(repeating: 10), terminal: Bool = false) {
        store = InMemoryStore(initialStock: stock)
        maker = JuiceMaker(store: store)
        output = RecordingSink(isTerminal: terminal)
        standardError = RecordingSink(isTerminal: terminal)
    }

    var host: PluginHost {
        let errors = errors
        return PluginHost(maker: maker, journal: store, reportError: { errors.report($0) })
    }

    func context(
        name: String = "subscriber", language: Language = .english, colorAllowed: Bool = false,
        stateDirectory: String = "/nonexistent", environment: [String: String] = [:]
    ) -> PluginContext {
        PluginContext(
            name: name, language: language, colorAllowed: colorAllowed, stateDirectory: stateDirectory,
            environment: environment, standardOutput: output, standardError: standardError)
    }

    /// Every event the journal holds, oldest first.
    func journal() throws -> [EventEnvelope] {
        try store.events(after: 0, limit: Int.max)
    }
}

/// A config section at `subscribers[index]`.
func section(_ index: Int = 0, _ values: [(key: String, value: ConfigValue)]) -> PluginConfiguration {
    PluginConfiguration(path: "subscribers[\(index)]", values: values)
}

/// `text` split at newlines, without the empty piece after a final newline.
func splitLines(_ text: String) -> [String] {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
}

/// A deadline far enough away that only a hang would reach it.
func generousDeadline() -> ContinuousClock.Instant {
    .now + .seconds(30)
}
