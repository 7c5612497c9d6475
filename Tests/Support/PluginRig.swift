import Foundation
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking

/// A `TextSink` that keeps every write, in order.
package final class RecordingSink: TextSink {
    package let isTerminal: Bool
    private let writes = Locked<[String]>([])

    package init(isTerminal: Bool = false) {
        self.isTerminal = isTerminal
    }

    package func write(_ text: String) {
        writes.withLock { $0.append(text) }
    }

    /// Every write, as written.
    package var texts: [String] { writes.withLock { $0 } }

    /// Everything written, as one text.
    package var text: String { texts.joined() }

    /// Everything written, split into lines (without the trailing empty one).
    package var lines: [String] { splitLines(text) }
}

/// Collects what plugins report through `PluginHost.reportError`.
package final class ErrorRecorder: Sendable {
    private let messages = Locked<[PluginMessage]>([])

    package init() {}

    package func report(_ message: PluginMessage) {
        messages.withLock { $0.append(message) }
    }

    /// Every report in English.
    package var all: [String] { messages.withLock { $0.map(\.english) } }
    /// Every report in Korean.
    package var korean: [String] { messages.withLock { $0.map(\.korean) } }
}

/// A maker over an in-memory store, with a host whose errors are recorded: what a
/// plugin under test attaches to.
package struct Rig {
    package let store: InMemoryStore
    package let maker: JuiceMaker
    package let errors = ErrorRecorder()
    package let output: RecordingSink
    package let standardError: RecordingSink
    /// The name `context()` gives the plugin unless told another.
    package let name: String

    package init(stock: Stock = Stock(repeating: 10), terminal: Bool = false, name: String = "subscriber") {
        store = InMemoryStore(initialStock: stock)
        maker = JuiceMaker(store: store)
        output = RecordingSink(isTerminal: terminal)
        standardError = RecordingSink(isTerminal: terminal)
        self.name = name
    }

    package var host: PluginHost {
        let errors = errors
        return PluginHost(maker: maker, journal: store, reportError: { errors.report($0) })
    }

    package func context(
        name: String? = nil, language: Language = .english, colorAllowed: Bool = false,
        stateDirectory: String = "/nonexistent", environment: [String: String] = [:]
    ) -> PluginContext {
        PluginContext(
            name: name ?? self.name, language: language, colorAllowed: colorAllowed, stateDirectory: stateDirectory,
            environment: environment, standardOutput: output, standardError: standardError)
    }

    /// Every event the journal holds, oldest first.
    package func journal() throws -> [EventEnvelope] {
        try store.events(after: 0, limit: Int.max)
    }
}

/// A config section at `subscribers[index]`: its members, in order.
package func section(_ index: Int, _ values: [(key: String, value: JSONValue)]) -> PluginConfiguration {
    PluginConfiguration(path: "subscribers[\(index)]", values: values.map { JSONMember(key: $0.key, value: $0.value) })
}

/// A config section at `subscribers[0]`.
package func section(_ values: [(key: String, value: JSONValue)]) -> PluginConfiguration {
    section(0, values)
}

/// `text` split at newlines, without the empty piece after a final newline.
package func splitLines(_ text: String) -> [String] {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
}

/// A deadline far enough away that only a hang would reach it. Two minutes: on a
/// loaded two-core machine the synchronous tests (which wait for `juice` processes)
/// can hold every thread of the cooperative pool for tens of seconds, and the async
/// work these deadlines wait for (a delivery, a logger's last writes) runs there.
package func generousDeadline() -> ContinuousClock.Instant {
    .now + .seconds(120)
}
