import JuiceMakerCore

/// `juice subscribers retry <name> [--dead-letters]`: re-enables a durable subscriber
/// stopped by its destination (410 Gone), gives its oldest failed event a fresh retry
/// schedule and delivers what is pending now, as `juice deliver` does; with
/// `--dead-letters` it first sends each of its dead letters once more.
struct SubscribersRetryCommand: RunnableCommand {
    static let needs = CommandNeeds.store

    let name: String
    let deadLetters: Bool

    init(_ invocation: Invocation) throws(CLIError) {
        name = invocation.arguments[0]
        deadLetters = invocation.has("dead-letters")
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        guard let built = session.builtPlugins.first(where: { $0.entry.name == name }) else {
            throw CLIError(.badValue, Catalog.Delivery.unknownSubscriber(name))
        }
        guard built.plugin is any DurableDeliveryPlugin else {
            throw CLIError(.badValue, Catalog.Delivery.notDurable(name))
        }
        _ = try session.maker(attachingPlugins: true)
        let runners = DeliverCommand.runners(session).filter { $0.name == name }
        let deadLetters = deadLetters
        let outcomes = await DeliverCommand.deliverAll(runners) { delivery in
            await delivery.retry(deadLetters: deadLetters, waitingAtMost: DeliverCommand.patience)
        }
        return DeliverCommand.report(outcomes, context: session.context)
    }
}
