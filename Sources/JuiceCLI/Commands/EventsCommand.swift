import JuiceMakerCore

/// `juice events [--since N] [--type T]… [--limit N]`: the journal, oldest first.
/// Without `--since`, `--limit` keeps the newest; with it, the first after N.
/// `--json` prints CloudEvents JSON Lines (`CloudEventFormat`).
struct EventsCommand: RunnableCommand {
    static let needs = CommandNeeds.store

    let since: Int64
    let kinds: Set<EventKind>?
    let limit: Int?
    let sinceGiven: Bool

    init(_ invocation: Invocation) throws(CLIError) {
        let path = invocation.path
        let since = try ValueParsing.since(invocation)
        self.since = since ?? 0
        sinceGiven = since != nil
        if let text = invocation.value("limit") {
            let limit = try ValueParsing.integer(text, for: "--limit", path: path)
            guard limit >= 1 else { throw CLIError(.badValue, Catalog.Errors.limitTooSmall(limit), usage: path) }
            self.limit = limit
        } else {
            limit = nil
        }
        kinds = try ValueParsing.eventKinds(invocation)
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let journal = try session.journal()
        let selected: [EventEnvelope]
        do {
            // Without --since, --limit keeps the newest: read only those.
            selected = try journal.events(
                after: since, kinds: kinds, limit: limit ?? Int.max, newest: !sinceGiven && limit != nil)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        if context.settings.json {
            context.console.standardOutput.write(selected.map { CloudEventFormat.encode($0) + "\n" }.joined())
            return .success
        }
        let language = context.language
        guard !selected.isEmpty else {
            context.console.print(Catalog.Results.noEvents)
            return .success
        }
        var rows = [[Catalog.Results.sequence(language), Catalog.Results.time(language), Catalog.Results.type(language), Catalog.Results.details(language)]]
        rows += selected.map { envelope in
            ["\(envelope.sequence)", RFC3339.format(envelope.time), envelope.event.kind.rawValue, Catalog.Results.event(envelope.event)(language)]
        }
        context.console.standardOutput.write(TableLayout.render(rows))
        return .success
    }
}
