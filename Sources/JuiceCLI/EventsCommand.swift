import JuiceMakerCore

/// `juice events [--since N] [--type T]… [--limit N]`: the journal, oldest first.
/// Without `--since`, `--limit` keeps the newest; with it, the first after N.
/// `--json` prints CloudEvents JSON Lines (`CloudEventFormat`).
struct EventsCommand: RunnableCommand {
    static let needs = CommandNeeds.store
    private static let pageSize = 1000

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
        var selected: [EventEnvelope] = []
        var after = since
        do {
            while true {
                let page = try journal.events(after: after, limit: Self.pageSize)
                selected += page.filter { kinds?.contains($0.event.kind) ?? true }
                if sinceGiven, let limit, selected.count >= limit { break }
                guard let last = page.last, page.count == Self.pageSize else { break }
                after = last.sequence
            }
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        if let limit, selected.count > limit {
            selected = sinceGiven ? Array(selected.prefix(limit)) : Array(selected.suffix(limit))
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
