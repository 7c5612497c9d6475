import FleetConfiguration
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import NATSClient

/// `juice fleet deliver [--follow]`: the configured webhook, command and logger
/// subscribers fed from the fleet's stream instead of the local journal, each through
/// a JetStream durable consumer named after it (explicit ack after a successful
/// delivery), with the same plugins, signing and retries. A logger runs as a durable
/// subscriber here: its line is written before the ack. Retry state and dead letters
/// are kept in the local store under `<name>@fleet` (`Fleet.bookkeepingName`). A
/// consumer is created when missing and outlives every exit (`DurableConsumer`). Exits
/// as `juice deliver`.
struct FleetDeliverCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: LocalizedText(
            "Deliver every machine's events to the configured webhook, command and logger subscribers, from the stream.",
            ko: "모든 기계의 이벤트를 스트림에서 읽어 설정된 webhook, command, logger 구독자에게 전달합니다."))

    struct Options: CommandOptions {
        let nats: Option<String?>
        let follow: Option<Bool>
        init(_ options: inout OptionList) {
            nats = options.nats()
            follow = options.flag(
                "follow",
                help: LocalizedText(
                    "Keep running and deliver events as they reach the stream (Ctrl-C stops).",
                    ko: "계속 실행하며 스트림에 오는 이벤트를 전달합니다 (Ctrl-C로 멈춤)."))
        }
    }
    /// The store: retry state and dead letters are kept in its delivery tables.
    static let needs = CommandNeeds.store

    let nats: String?
    let follow: Bool

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        nats = try options.nats.value
        follow = try options.follow.value
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        let context = session.context
        let plugins = FleetFeed.fedPlugins(session)
        // A bad `fleet` section is refused whether or not there is anything to feed.
        _ = try FleetCommandSupport.subjectPrefixAndStream(context)
        guard !plugins.isEmpty else {
            if !context.settings.quiet { context.console.print(Catalog.Delivery.noDurableSubscribers) }
            return .success
        }
        let reader = try FleetCommandSupport.reader(context, nats: nats)
        let feed = try FleetFeed.attach(plugins, session: session, reader: reader)
        defer { feed.stop() }
        let stderr = context.console.standardError
        if follow {
            let stop = session.stopSignals()
            for journal in feed.journals { journal.startFeeding() }
            for runner in feed.runners { runner.delivery.follow() }
            if !context.settings.quiet {
                stderr.write(Catalog.Delivery.following(feed.runners.map(\.name))(context.language) + "\n")
            }
            await stop.requested()
            await feed.stopRunners(context)
            return .success
        }
        return try await feed.deliverAvailable(session)
    }
}
