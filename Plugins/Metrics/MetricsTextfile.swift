#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking

/// Writes the store's figures (`MetricsFigures`) in Prometheus' text format to a file
/// for node_exporter's textfile collector, after each change committed to the journal,
/// by this process or any other while this one runs: the `metrics` subscriber.
///
/// Config (`type: "metrics"`):
/// - `path`: the file (default `juice-maker.prom`; node_exporter reads `*.prom` in its
///   `--collector.textfile.directory`). A relative path resolves against the store's
///   directory, `~/` against `HOME`; a file in a directory that does not exist is
///   refused as a config error.
///
/// Guarantees:
/// - **Never half a file.** Each write goes to a temporary file in the same directory
///   (named `.<file>.<pid>.tmp`, which the collector passes over), renamed into place
///   (`AtomicFile`, as `juice report --svg`: a symbolic link is followed and stays a link,
///   and the file replaced keeps its mode and owner).
/// - **Never older than what was written.** Writes are made one at a time, each from a
///   fresh read of the store, and one whose journal is shorter than the last written
///   is dropped.
/// - **Complete by exit.** `shutdown` writes once more if the journal grew since the
///   last write (by `deadline`).
/// - **Never costs an order.** The figures are read and written on a thread of the
///   subscriber's own, after the commit; a file that cannot be written is reported
///   once and tried again at the next change.
///
/// Lag and last success are as of the last write: a cursor that moves without a new
/// event (a delivery) shows at the next change; `juice metrics` reads them now.
package final class MetricsTextfile: EventObserver {
    /// The config `type` that selects the metrics textfile.
    package static let type = "metrics"
    static let pathKey = ConfigurationKey(
        "path", .string([.nonEmpty("path"), .noNUL]), default: .string("juice-maker.prom"),
        expected: PluginMessage(english: "a file path", korean: "파일 경로"), secrecy: .harmless,
        description:
            "The textfile node_exporter reads (*.prom in its textfile directory), replaced whole at each change; relative to the store's directory.")
    /// The keys the metrics textfile reads.
    package static let configuration = [pathKey]
    /// An observer.
    package static let declaration = PluginDeclaration.observer(MetricsTextfile.self, type: type, configuration: configuration)

    /// The longest one wait of the follower: a bound that lets a stopped follower's
    /// thread end, not a poll (the wait returns at the first new event).
    static let followBound = Duration.seconds(2)

    /// The file as configured.
    package let path: String
    /// The file written, absolute or relative to the working directory.
    package let resolvedPath: String

    private let context: PluginContext
    /// The journal length the file shows (-1: none written yet); held while a write
    /// runs, so writes take turns and never go back.
    private let written = Locked<Int64>(-1)
    private let state = Locked(State())

    private struct State {
        var attached = false
        var stopping = false
        var host: PluginHost?
        var totals: (any JournalTotalsReading)?
        var failureReported = false
    }

    /// Builds the subscriber from its config section. Writes nothing yet.
    package init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        path = try configuration.string(Self.pathKey) ?? "juice-maker.prom"
        resolvedPath = context.filePath(path)
        self.context = context
        try context.requireDirectory(of: path, at: "\(configuration.path).path")
    }

    /// Starts following the journal on a thread of its own. A store that keeps no
    /// totals (a stream of another machine's events) is reported once; nothing is written then.
    package func attach(to host: PluginHost) throws(PluginError) {
        guard let totals = host.totals else {
            host.reportError(
                PluginMessage(
                    english: "this journal keeps no totals; \(resolvedPath) is not written",
                    korean: "이 저널은 합계를 두지 않습니다. \(resolvedPath)에 쓰지 않습니다"))
            return
        }
        let isFirst = state.withLock { state -> Bool in
            defer { state.attached = true }
            guard !state.attached else { return false }
            state.host = host
            state.totals = totals
            return true
        }
        guard isFirst else { return }
        let journal = host.journal
        let start: Int64
        do {
            start = try journal.lastSequence()
        } catch {
            report(cannotRead: error, host: host)
            return
        }
        // A file already there shows the journal as it is: it is rewritten at the next
        // change. One that is missing is written at once.
        var info = stat()
        if stat(resolvedPath, &info) == 0 { written.withLock { $0 = start } }
        startDetachedThread(named: "juice.metrics") { [self] in follow(journal, from: start) }
    }

    /// Writes once more if the journal grew since the last write, by `deadline`; the
    /// follower's thread ends at its next wake-up.
    package func shutdown(deadline: ContinuousClock.Instant) async {
        let attached = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return state.host != nil && !state.stopping
        }
        guard attached else { return }
        let done = Locked(false)
        let waiters = AsyncWaiters<Bool>()
        startDetachedThread(named: "juice.metrics.end") { [self] in
            writeIfBehind()
            done.withLock { done in
                done = true
                waiters.resumeSatisfied(by: true)
            }
        }
        _ = await waiters.wait(until: deadline, current: { done.withLock { $0 } }, for: { $0 })
    }

    /// Waits for each new event (from any process) and writes the figures after it,
    /// until shutdown.
    private func follow(_ journal: any EventJournal, from start: Int64) {
        var seen = start
        if written.withLock({ $0 }) < 0 { writeIfBehind() }
        while !state.withLock({ $0.stopping }) {
            do {
                guard try journal.waitForEvents(after: seen, timeout: Self.followBound) else { continue }
                seen = try journal.lastSequence()
            } catch {
                if let host = state.withLock({ $0.host }) { report(cannotRead: error, host: host) }
                return
            }
            guard !state.withLock({ $0.stopping }) else { return }
            writeIfBehind()
        }
    }

    /// Reads the figures and replaces the file, unless the file already shows the
    /// journal as long as it is now (or longer).
    private func writeIfBehind() {
        let (host, totals) = state.withLock { ($0.host, $0.totals) }
        guard let host, let totals else { return }
        written.withLock { written in
            let figures: MetricsFigures
            do throws(StoreError) {
                guard try host.journal.lastSequence() > written else { return }
                figures = try MetricsFigures.read(totals: totals, journal: host.deliveryJournal)
            } catch {
                report(cannotRead: error, host: host)
                return
            }
            guard figures.totals.events >= written else { return }
            do throws(AtomicFile.Failure) {
                try AtomicFile.write(Array(MetricsExposition.render(figures).utf8), to: resolvedPath, gate: context.files)
                written = figures.totals.events
            } catch {
                reportOnce(
                    host,
                    PluginMessage(
                        english: "cannot write \(resolvedPath): \(error.reason); tried again at the next change (orders are not affected)",
                        korean: "\(resolvedPath)에 쓸 수 없습니다: \(error.reason). 다음 변경 때 다시 씁니다(주문에는 영향이 없습니다)"))
            }
        }
    }

    private func report(cannotRead error: StoreError, host: PluginHost) {
        let why = host.describeStoreError(error)
        reportOnce(
            host,
            PluginMessage(
                english: "cannot read the figures for \(resolvedPath): \(why.english) (orders are not affected)",
                korean: "\(resolvedPath)에 쓸 수치를 읽을 수 없습니다: \(why.korean)(주문에는 영향이 없습니다)"))
    }

    private func reportOnce(_ host: PluginHost, _ message: PluginMessage) {
        let first = state.withLock { state -> Bool in
            defer { state.failureReported = true }
            return !state.failureReported
        }
        if first { host.reportError(message) }
    }
}
