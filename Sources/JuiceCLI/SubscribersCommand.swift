import JuiceMakerCore

/// `juice subscribers`: each configured subscriber, its type, whether it is enabled,
/// and, for durable ones (those with a cursor in the journal), how many events it is
/// behind and how many it gave up on.
struct SubscribersCommand: RunnableCommand {
    static let needs = CommandNeeds.store

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let language = context.language
        let journal = try session.journal()
        let last: Int64
        let cursors: [String: Int64]
        let letters: [DeadLetter]
        do {
            last = try journal.lastSequence()
            cursors = try journal.cursors()
            letters = try journal.deadLetters(for: nil)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        let subscribers = context.config.subscribers
        if context.settings.json {
            let items = subscribers.map { entry -> ConfigValue in
                let cursor = cursors[entry.name]
                return .object([
                    ("name", .string(entry.name)),
                    ("type", .string(entry.type)),
                    ("enabled", .bool(entry.enabled)),
                    ("cursor", cursor.map { .number(Double($0)) } ?? .null),
                    ("lag", cursor.map { .number(Double(max(0, last - $0))) } ?? .null),
                    ("deadLetters", .integer(letters.filter { $0.subscriber == entry.name }.count)),
                ])
            }
            context.console.print(JSONWriter.compact(.array(items)))
            return .success
        }
        guard !subscribers.isEmpty else {
            context.console.print(Catalog.Results.noSubscribers)
            return .success
        }
        let results = Catalog.Results.self
        var rows = [[results.subscriber(language), results.type(language), results.state(language), results.lag(language), results.deadLetters(language)]]
        rows += subscribers.map { entry in
            let state = entry.enabled ? results.enabled(language) : results.disabled(language)
            guard let cursor = cursors[entry.name] else {
                return [entry.name, entry.type, state, results.notDurable(language), results.notDurable(language)]
            }
            let dead = letters.filter { $0.subscriber == entry.name }.count
            return [entry.name, entry.type, state, "\(max(0, last - cursor))", "\(dead)"]
        }
        context.console.standardOutput.write(TableLayout.render(rows))
        return .success
    }
}
