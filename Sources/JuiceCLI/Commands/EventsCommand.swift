import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// `juice events [--since N] [--type T]… [--limit N]`: the journal, oldest first.
/// Without `--since`, `--limit` keeps the newest; with it, the first after N.
/// `--json` prints CloudEvents JSON Lines (`CloudEventFormat`). A row this version
/// cannot read (damaged JSON, a type from a newer `juice`) costs only itself: every
/// readable event is printed, each unreadable one gets a line on stderr naming its
/// sequence, and the exit status is then 74.
struct EventsCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: LocalizedText(
            "List the journal's events (CloudEvents JSON Lines with --json).",
            ko: "기록된 이벤트를 보여 줍니다 (--json이면 CloudEvents JSON Lines)."))

    struct Options: CommandOptions {
        let since: Option<Int64?>
        let kinds: Option<Set<EventKind>?>
        let limit: Option<Int?>
        init(_ options: inout OptionList) {
            since = options.sequence("since", help: LocalizedText("Only events after this sequence number.", ko: "이 순번 다음의 이벤트만."))
            kinds = options.eventTypes()
            limit = options.integer(
                "limit", value: "n", in: 1...Int(Int64.max),
                help: LocalizedText(
                    "At most this many events (the newest, or the first after --since).", ko: "최대 이벤트 수 (최신 것, 또는 --since 다음부터)."),
                belowMinimum: Catalog.Errors.limitTooSmall)
        }
    }

    let since: Int64
    let kinds: Set<EventKind>?
    let limit: Int?
    let sinceGiven: Bool

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        let since = try options.since.value
        self.since = since ?? 0
        sinceGiven = since != nil
        limit = try options.limit.value
        kinds = try options.kinds.value
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let journal = try session.journal()
        let entries: [JournalEntry]
        do {
            // Without --since, --limit keeps the newest: read only those.
            entries = try Self.entries(journal, after: since, kinds: kinds, limit: limit, newest: !sinceGiven && limit != nil)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        var selected: [EventEnvelope] = []
        var unreadable: [UnreadableEvent] = []
        for entry in entries {
            switch entry {
            case .event(let envelope): selected.append(envelope)
            case .unreadable(let row): unreadable.append(row)
            }
        }
        let status = Self.print(selected, context: context)
        guard !unreadable.isEmpty else { return status }
        let language = context.language
        context.console.standardError.write(
            unreadable.map { row in
                "\(Catalog.Errors.prefix(language)) \(TerminalText.escaped(Catalog.Journal.unreadable(row.sequence, reason: row.reason)(language)))\n"
            }.joined())
        return .storeIO
    }

    /// The first (or with `newest` the last) `limit` events after `sequence`, and the
    /// unreadable rows among them: a row that cannot be read is reported but does not
    /// count toward the limit, so the journal is read on past it.
    static func entries(
        _ journal: any EventJournal, after sequence: Int64, kinds: Set<EventKind>?, limit: Int?, newest: Bool
    ) throws(StoreError) -> [JournalEntry] {
        guard let limit else { return try journal.entries(after: sequence, kinds: kinds, limit: Int.max, newest: newest) }
        func isEvent(_ entry: JournalEntry) -> Bool { if case .event = entry { true } else { false } }
        var taken: [JournalEntry] = []
        var asked = limit
        var cursor = sequence
        while true {
            // Newest first: ask again for as many more as there were unreadable rows;
            // oldest first: go on after the page.
            let page = try journal.entries(after: newest ? sequence : cursor, kinds: kinds, limit: asked, newest: newest)
            taken = newest ? page : taken + page
            // Never more than `limit` events: each page asks for only the ones missing.
            let events = taken.filter(isEvent).count
            if events >= limit || page.count < asked { return taken }
            if newest {
                asked += limit - events
            } else {
                cursor = page.last?.sequence ?? cursor
                asked = limit - events
            }
        }
    }

    private static func print(_ selected: [EventEnvelope], context: CommandContext) -> ExitCode {
        if context.settings.json {
            context.console.standardOutput.write(selected.map { CloudEventFormat.encode($0) + "\n" }.joined())
            return .success
        }
        let language = context.language
        guard !selected.isEmpty else {
            context.console.print(Catalog.Results.noEvents)
            return .success
        }
        var rows = [
            [Catalog.Results.sequence(language), Catalog.Results.time(language), Catalog.Results.type(language), Catalog.Results.details(language)]
        ]
        rows += selected.map { envelope in
            ["\(envelope.sequence)", RFC3339.format(envelope.time), envelope.event.kind.rawValue, Catalog.Results.event(envelope.event)(language)]
        }
        context.console.standardOutput.write(TableLayout.render(rows))
        return .success
    }
}
