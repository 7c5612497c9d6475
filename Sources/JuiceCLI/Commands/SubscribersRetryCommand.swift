import FleetConfiguration
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import NATSClient

/// `juice subscribers retry <name> [--dead-letters]`: re-enables a durable subscriber
/// stopped by its destination (410 Gone), gives its oldest failed event a fresh retry
/// schedule and delivers what is pending now, as `juice deliver` does; with
/// `--dead-letters` it first sends each of its dead letters once more.
struct SubscribersRetryCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: LocalizedText(
            "Re-enable a durable subscriber and deliver its pending events now.",
            ko: "내구성 구독자를 다시 켜고 밀린 이벤트를 지금 전달합니다."))

    struct Options: CommandOptions {
        let name: Argument<String>
        let deadLetters: Option<Bool>
        init(_ options: inout OptionList) {
            name = options.subscriberName()
            deadLetters = options.flag(
                "dead-letters",
                help: LocalizedText(
                    "Also send each dead letter once more (those delivered are removed).",
                    ko: "데드 레터도 한 번씩 다시 보냅니다 (전달된 것은 지웁니다)."))
        }
    }

    let name: String
    let deadLetters: Bool

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        name = try options.name.value
        deadLetters = try options.deadLetters.value
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        let subscriber = Fleet.subscriber(fromBookkeepingName: name) ?? name
        guard let built = session.builtPlugins.first(where: { $0.entry.name == subscriber }) else {
            throw CLIError(.badValue, Catalog.Delivery.unknownSubscriber(name))
        }
        if try isFleets(built, session: session) {
            let reader = try FleetCommandSupport.reader(session.context, nats: nil)
            let feed = try FleetFeed.attach([built], session: session, reader: reader)
            defer { feed.stop() }
            let deadLetters = deadLetters
            return try await feed.deliverAvailable(session) { delivery in
                await delivery.retry(deadLetters: deadLetters, waitingAtMost: DeliverCommand.patience)
            }
        }
        guard built.durable != nil else {
            throw CLIError(.badValue, Catalog.Delivery.notDurable(name))
        }
        _ = try session.maker(attachingPlugins: true)
        let runners = DeliverCommand.runners(session).filter { $0.name == name }
        let deadLetters = deadLetters
        let outcomes = await DeliverCommand.deliverAll(
            runners, stop: session.stopSignals(), flushDeadline: session.context.config.flushDeadlineSeconds
        ) { delivery in
            await delivery.retry(deadLetters: deadLetters, waitingAtMost: DeliverCommand.patience)
        }
        return DeliverCommand.report(outcomes, context: session.context)
    }

    /// Whether to retry `juice fleet deliver`'s delivery: named `<name>@fleet`, or only
    /// that one has something to retry.
    private func isFleets(_ built: BuiltPlugin, session: Session) throws(CLIError) -> Bool {
        if Fleet.subscriber(fromBookkeepingName: name) != nil { return true }
        let journal = try session.journal()
        func pending(_ name: String) throws(StoreError) -> Bool {
            if try journal.retryState(for: name) != nil { return true }
            return try !journal.deadLetters(for: name).isEmpty
        }
        do throws(StoreError) {
            if built.durable != nil, try pending(name) { return false }
            return try pending(Fleet.bookkeepingName(name))
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
    }
}
