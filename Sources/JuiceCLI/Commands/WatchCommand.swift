import JuiceMakerCore
import JuiceMakerPluginKit

/// `juice watch [--since N] [--type T]…`: follows the journal and shows each new
/// event as the CLI notifier would (`--json`: one CloudEvents JSON line each),
/// including events committed by other `juice` processes on the same store.
///
/// Starts after the newest event, or with `--since N` replays the events after N
/// first. A row this version cannot read is reported on stderr by its sequence and
/// passed. Each event is written with one `write(2)` as it is read, so a pipe reader
/// sees it at once. Ctrl-C, SIGTERM or SIGHUP stops it between two events; the exit
/// status is 128 + the signal (130, 143, 129), as for every command a signal stops.
struct WatchCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: LocalizedText(
            "Show events as they happen, also those of other juice processes (Ctrl-C stops).",
            ko: "일어나는 이벤트를 바로 보여 줍니다. 다른 juice 프로세스의 것도 (Ctrl-C로 멈춤)."))

    struct Options: CommandOptions {
        let since: Option<Int64?>
        let kinds: Option<Set<EventKind>?>
        init(_ options: inout OptionList) {
            since = options.sequence(
                "since",
                help: LocalizedText(
                    "First replay the events after this sequence number, then follow.",
                    ko: "이 순번 다음의 이벤트를 먼저 다시 보여 준 뒤 따라갑니다."))
            kinds = options.eventTypes()
        }
    }

    /// How long one wait for new events may last before a stop signal is looked at
    /// again (the store's wait ends on its own short slices too).
    private static let waitSlice = Duration.milliseconds(200)
    private static let pageSize = 500

    let since: Int64?
    let kinds: Set<EventKind>?

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        since = try options.since.value
        kinds = try options.kinds.value
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let journal = try session.journal()
        let stop = session.stopSignals()
        let output = context.console.standardOutput
        let json = context.settings.json
        // Nobody answers a question here: a failed order is stated, not asked about.
        let renderer = context.registry.eventRenderer(
            EventRenderingStyle(language: context.language, color: context.settings.colorAllowed && output.isTerminal, asks: false))
        if output.isTerminal, !json, !context.settings.quiet {
            context.console.print(Catalog.Screens.watching(context.location.displayPath))
        }
        do {
            var cursor: Int64
            if let since { cursor = since } else { cursor = try journal.lastSequence() }
            while !stop.isRequested {
                let page = try journal.entries(after: cursor, limit: Self.pageSize)
                for entry in page {
                    cursor = entry.sequence
                    guard case .event(let envelope) = entry else {
                        // One bad row is reported and passed, never a stall.
                        if case .unreadable(let row) = entry {
                            let line = Catalog.Journal.skipped(row.sequence, reason: row.reason)(context.language)
                            context.console.standardError.write(
                                "\(Catalog.Errors.prefix(context.language)) \(TerminalText.escaped(line))\n")
                        }
                        continue
                    }
                    guard kinds?.contains(envelope.event.kind) ?? true else { continue }
                    output.write(
                        json
                            ? CloudEventFormat.encode(envelope) + "\n"
                            : renderer.lines(for: envelope).joined(separator: "\n") + "\n")
                }
                if page.count < Self.pageSize {
                    _ = try journal.waitForEvents(after: cursor, timeout: Self.waitSlice)
                }
            }
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        // The terminal echoed `^C` on the last line; end it.
        if output.isTerminal { output.write("\n") }
        return .success  // the runner makes it 128 + the signal
    }
}
