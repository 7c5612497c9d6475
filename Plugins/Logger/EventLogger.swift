import EventBus
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking

/// Writes the events it hears, one line each, as text or CloudEvents JSON, to
/// standard error or a file: the logger plugin. (Named so it does not read as
/// swift-log's `Logger`, a type for a program's own log messages.)
///
/// Config (`type: "logger"`):
/// - `level`: `trace debug info notice warning error critical` (default `info`).
///   Events are logged at a fixed level each (see `LogLevel.init(of:)`); kinds below
///   `level` are filtered out when subscribing, so they cost the order nothing.
/// - `format`: `text` (default, see `LogFormat.text`) or `json` (CloudEvents JSON Lines).
/// - `path`: `"stderr"` (default) or a file, appended to and created with mode 0600.
///   A relative path resolves against the state directory; `~/` against `HOME`. A
///   file in a directory that does not exist is refused as a config error (a bare
///   name is exempt: it goes in the store's directory, created with the store).
/// - `events`: optional list of kinds to log (`["juiceMade", "orderFailed"]`).
///
/// Delivery is queued: the order path only hands the event to the logger's mailbox,
/// and lines are written in batches on the logger's own queue (see `mailboxCapacity`).
///
/// A log that cannot be written never costs an order. A path that cannot be opened
/// at `attach` is reported once through `PluginHost.reportError` and the logger runs
/// detached (logs nothing) for the rest of the process: the command still runs and
/// the journal still holds every event. A write that fails later (a full disk) is
/// reported once; the logger keeps trying with later lines.
package final class EventLogger: EventObserver {
    /// The config `type` that selects the logger.
    package static let type = "logger"
    static let levelKey = ConfigurationKey(
        "level", .oneOf(LogLevel.allCases.map(\.rawValue)), default: .string(LogLevel.info.rawValue),
        description: "The least severe level written: stockChanged logs at info, juiceMade at notice, orderFailed at warning.")
    static let formatKey = ConfigurationKey(
        "format", .oneOf(LogFormat.allCases.map(\.rawValue)), default: .string(LogFormat.text.rawValue),
        description: "text, or json: CloudEvents JSON Lines.")
    static let pathKey = ConfigurationKey(
        "path", .string([.nonEmpty("path"), .noNUL]), default: .string("stderr"),
        expected: PluginMessage(english: "\"stderr\" or a file path", korean: "\"stderr\" 또는 파일 경로"), secrecy: .harmless,
        description: "\"stderr\" or a file (appended, created with mode 0600); relative to the store's directory.")
    static let eventsKey = ConfigurationKey.events("Only these kinds of event are logged; default all.")
    /// The keys the logger reads.
    package static let configuration = [levelKey, formatKey, pathKey, eventsKey]
    /// An observer, fed from the fleet's stream through its log (`LoggerDestination`):
    /// the host's runner hands it each event of the kinds it logs.
    package static let declaration = PluginDeclaration.observer(
        EventLogger.self, type: type, configuration: configuration,
        fedFromFleet: { logger in (LoggerDestination(logger: logger), logger.loggedKinds) })

    /// Events the mailbox holds before it drops new ones: about 2 MB of envelopes,
    /// far more than one command produces, enough for bursts of thousands of orders.
    /// When full, the newest event is dropped (`dropNewest`), so the log stays an
    /// unbroken prefix of the journal rather than a log with holes; every drop is
    /// counted and reported once at shutdown. The journal stays the complete record.
    package static let mailboxCapacity = 16_384

    /// The least severe level written.
    package let level: LogLevel
    /// How each event is written.
    package let format: LogFormat
    /// `"stderr"` or the file path as configured.
    package let path: String
    /// The configured `events` filter; `nil` means every kind.
    package let eventKinds: Set<EventKind>?

    private let context: PluginContext
    private let state = Locked(State())
    /// Events the handler has finished with, and the shutdown waiting for a number of them.
    private let handled = Locked(0)
    private let handledWaiters = AsyncWaiters<Int>()

    private struct State {
        var attached = false
        var host: PluginHost?
        var writer: LogWriter?
        var subscription: Subscription?
    }

    /// Builds the logger from its config section. Opens nothing yet.
    package init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        self.level = try configuration.string(Self.levelKey).flatMap(LogLevel.init(rawValue:)) ?? .info
        self.format = try configuration.string(Self.formatKey).flatMap(LogFormat.init(rawValue:)) ?? .text
        self.path = try configuration.string(Self.pathKey) ?? "stderr"
        self.eventKinds = try configuration.eventKinds(Self.eventsKey)
        self.context = context
        if path != "stderr" { try context.requireDirectory(of: path, at: "\(configuration.path).path") }
    }

    /// The kinds this logger subscribes to: the `events` filter at or above `level`.
    package var loggedKinds: Set<EventKind> {
        level.kindsAtOrAbove.intersection(eventKinds ?? Set(EventKind.allCases))
    }

    /// Where lines go: `nil` for standard error, else the absolute file path.
    package var resolvedPath: String? {
        Self.resolve(path, stateDirectory: context.stateDirectory, home: context.environment["HOME"])
    }

    static func resolve(_ path: String, stateDirectory: String, home: String?) -> String? {
        path == "stderr" ? nil : PluginContext.filePath(path, stateDirectory: stateDirectory, home: home)
    }

    /// Opens the log and subscribes. Never throws for the log itself: an unopenable
    /// path is reported once and the logger stays detached.
    package func attach(to host: PluginHost) throws(PluginError) {
        let isFirst = state.withLock { state -> Bool in
            defer { state.attached = true }
            return !state.attached
        }
        guard isFirst else { return }

        let name = context.name
        let sink: any TextSink
        if let file = resolvedPath {
            do {
                sink = try FileSink(appendingTo: file, gate: context.files) { reason in
                    host.reportError(
                        PluginMessage(
                            english: "cannot write the log \(file): \(reason); later lines may be lost (orders are not affected)",
                            korean: "로그 \(file)에 쓸 수 없습니다: \(reason). 이후 줄이 빠질 수 있습니다(주문에는 영향이 없습니다)"))
                }
            } catch {
                // The system's refusals in the person's words, as for any file the store opens.
                let why = error.systemCode.map { host.describeStoreError(StoreError(.cannotOpen(.current($0)), path: file)) } ?? error.message
                host.reportError(
                    PluginMessage(
                        english: "cannot open the log \(file): \(why.english); logging is off for this run (orders are not affected)",
                        korean: "로그 \(file)을(를) 열 수 없습니다: \(why.korean). 이번 실행에서는 로그를 남기지 않습니다(주문에는 영향이 없습니다)"))
                return
            }
        } else {
            sink = context.standardError
        }

        let writer = LogWriter(sink: sink, label: name)
        state.withLock { state in
            state.host = host
            state.writer = writer
        }
        let kinds = loggedKinds
        guard !kinds.isEmpty else { return }
        let format = format
        let subscription = try host.subscribe(
            name, delivery: .queued(capacity: Self.mailboxCapacity, whenFull: .dropNewest), kinds: kinds
        ) { [handled, handledWaiters] envelope in
            writer.append(format.line(for: envelope))
            handled.withLock { count in
                count += 1
                handledWaiters.resumeSatisfied(by: count)
            }
        }
        state.withLock { $0.subscription = subscription }
    }

    /// Writes `envelope`'s line at once, past the mailbox, as the bus handler would
    /// (kinds outside `loggedKinds` are passed over), and returns once the line has
    /// been handed to the log's `write(2)`: for `juice fleet deliver`, which feeds the
    /// logger from the fleet's stream and acknowledges an event only after this
    /// returns `true`. `false`: not attached, or the log could not be opened.
    package func write(_ envelope: EventEnvelope) -> Bool {
        guard let writer = state.withLock({ $0.writer }) else { return false }
        guard loggedKinds.contains(envelope.event.kind) else { return true }
        writer.append(format.line(for: envelope))
        writer.flush()
        return true
    }

    /// Waits, until `deadline` at the latest, for the mailbox to empty, then writes
    /// every line it holds and closes the log. Returns by `deadline` even when a
    /// write is stuck. Events dropped for lack of room, events still waiting at
    /// `deadline` and lines not written by then are reported in one error line.
    package func shutdown(deadline: ContinuousClock.Instant) async {
        let (subscription, writer, host) = state.withLock { state in
            defer {
                state.subscription = nil
                state.writer = nil
                state.host = nil
            }
            return (state.subscription, state.writer, state.host)
        }
        var dropped = 0
        if let subscription {
            // Every event the mailbox accepted is handled or waiting: wait, on the
            // handler's own signal, until the handler has finished with all of them.
            // What did not make it is what the mailbox discarded plus what it accepted
            // and the handler had not finished by the deadline. (The mailbox's own
            // `queued` still counts a batch the handler has just finished until its
            // drain comes back for the next one: not a loss.)
            let before = subscription.statistics
            let accepted = before.map { $0.delivered + $0.failed + $0.queued } ?? 0
            _ = await handledWaiters.wait(
                until: deadline, current: { handled.withLock { $0 >= accepted } }, for: { $0 >= accepted })
            let finished = handled.withLock { $0 }
            let statistics = subscription.statistics
            subscription.cancel()
            dropped = (statistics?.dropped ?? before?.dropped ?? 0) + max(0, accepted - finished)
        }
        let closed = await writer?.close(before: deadline) ?? true
        guard let host, dropped > 0 || !closed else { return }
        var english: [String] = []
        var korean: [String] = []
        if dropped > 0 {
            let were = EnglishCount.choose(dropped, "was", "were")
            english.append("\(EnglishCount.of(dropped, "event")) \(were) not logged because the log could not keep up")
            korean.append("로그가 따라가지 못해 이벤트 \(dropped)개를 기록하지 못했습니다")
        }
        if !closed {
            english.append("the last lines could not be written before exit")
            korean.append("종료 전에 마지막 줄을 쓰지 못했습니다")
        }
        let target = resolvedPath ?? "stderr"
        host.reportError(
            PluginMessage(
                english: "\(english.joined(separator: " and ")) (\(target)); `juice events` lists every event",
                korean: "\(korean.joined(separator: ". ")) (\(target)). 모든 이벤트는 `juice events`로 볼 수 있습니다"))
    }
}
