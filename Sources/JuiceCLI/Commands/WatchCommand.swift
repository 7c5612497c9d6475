import CLINotifierPlugin
import JuiceMakerCore

/// `juice watch [--since N] [--type T]…`: follows the journal and shows each new
/// event as the CLI notifier would (`--json`: one CloudEvents JSON line each),
/// including events committed by other `juice` processes on the same store.
///
/// Starts after the newest event, or with `--since N` replays the events after N
/// first. Each event is written with one `write(2)` as it is read, so a pipe reader
/// sees it at once. Ctrl-C stops it between two events; exit status 0.
struct WatchCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: LocalizedText(
            "Show events as they happen, also those of other juice processes (Ctrl-C stops).",
            ko: "일어나는 이벤트를 바로 보여 줍니다. 다른 juice 프로세스의 것도 (Ctrl-C로 멈춤)."),
        options: [
            OptionSpec("since", value: "sequence", help: LocalizedText(
                "First replay the events after this sequence number, then follow.",
                ko: "이 순번 다음의 이벤트를 먼저 다시 보여 준 뒤 따라갑니다.")),
            EventsCommand.typeOption,
        ])
    /// How long one wait for new events may last before Ctrl-C is looked at again
    /// (the interrupt also ends a wait through the store's own short slices).
    private static let waitSlice = Duration.milliseconds(200)
    private static let pageSize = 500

    let since: Int64?
    let kinds: Set<EventKind>?

    init(_ invocation: Invocation) throws(CLIError) {
        since = try ValueParsing.since(invocation)
        kinds = try ValueParsing.eventKinds(invocation)
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let journal = try session.journal()
        let interrupt = InterruptSignal()
        let output = context.console.standardOutput
        let json = context.settings.json
        // Nobody answers a question here: a failed order is stated, not asked about.
        let renderer = NotificationRenderer(
            language: context.language, color: context.settings.colorAllowed && output.isTerminal, asks: false)
        if output.isTerminal, !json, !context.settings.quiet {
            context.console.print(Catalog.Screens.watching(context.location.displayPath))
        }
        do {
            var cursor: Int64
            if let since { cursor = since } else { cursor = try journal.lastSequence() }
            while !interrupt.isRequested {
                let page = try journal.events(after: cursor, limit: Self.pageSize)
                for envelope in page {
                    cursor = envelope.sequence
                    guard kinds?.contains(envelope.event.kind) ?? true else { continue }
                    output.write(json
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
        return .success
    }
}
