import FleetConfiguration
import JuiceMakerCore
import JuiceMakerPluginKit
import LoggerPlugin
#if canImport(NATSPlugin)
import NATSPlugin
#endif

/// `juice fleet deliver [--follow]`: the configured webhook, command and logger
/// subscribers fed from the fleet's stream instead of the local journal, each through
/// a JetStream durable consumer named after it (explicit ack after a successful
/// delivery), with the same plugins, signing and retries. A logger runs as a durable
/// subscriber here: its line is written before the ack. Retry state and dead letters
/// are kept in the local store under `<name>@fleet` (`Fleet.bookkeepingName`). Exits
/// as `juice deliver`.
struct FleetDeliverCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: LocalizedText(
            "Deliver every machine's events to the configured webhook, command and logger subscribers, from the stream.",
            ko: "모든 기계의 이벤트를 스트림에서 읽어 설정된 webhook, command, logger 구독자에게 전달합니다."),
        options: [
            FleetGroup.natsOption,
            OptionSpec(
                "follow",
                help: LocalizedText(
                    "Keep running and deliver events as they reach the stream (Ctrl-C stops).",
                    ko: "계속 실행하며 스트림에 오는 이벤트를 전달합니다 (Ctrl-C로 멈춤).")),
        ])
    /// The store: retry state and dead letters are kept in its delivery tables.
    static let needs = CommandNeeds.store
    /// Messages held (fetched, not yet acknowledged) per subscriber.
    static let batch = 64
    /// Seconds the server waits for an ack before sending a message again; held
    /// messages are kept "in progress", so only a dead process lets it run out.
    static let ackWait = 5.0

    let nats: String?
    let follow: Bool

    init(_ invocation: Invocation) throws(CLIError) {
        nats = invocation.value("nats")
        follow = invocation.has("follow")
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        #if canImport(NATSPlugin)
        let context = session.context
        let durable = session.builtPlugins.filter { $0.plugin.durable != nil && !($0.plugin is NATSPublisher) }
        let loggers = session.builtPlugins.filter { $0.plugin is EventLogger }
        guard !durable.isEmpty || !loggers.isEmpty else {
            if !context.settings.quiet { context.console.print(Catalog.Delivery.noDurableSubscribers) }
            return .success
        }
        let reader = try FleetCommandSupport.reader(context, nats: nats)
        let local = try session.journal()
        // The plugins hear no bus: their runners are woken by the journals.
        let maker = JuiceMaker(store: InMemoryStore())
        let stderr = context.console.standardError
        let language = context.language
        var journals: [ConsumerJournal] = []
        defer { journals.forEach { $0.stop() } }
        var loggerRunners: [(name: String, delivery: DurableDelivery)] = []
        for built in durable + loggers {
            let name = built.entry.name
            let report: @Sendable (PluginMessage) -> Void = { detail in
                stderr.write("juice: \(Catalog.Errors.subscriberReport(name, detail)(language))\n")
            }
            let journal: ConsumerJournal
            do {
                let subscription = try reader.connection.durableConsumer(
                    stream: reader.stream, filter: "\(reader.prefix).>", durable: Fleet.consumerName(name),
                    ackWait: Self.ackWait, maxAckPending: Self.batch)
                journal = ConsumerJournal(subscription: subscription, batch: Self.batch, bookkeeping: local) {
                    report(PluginMessage(untranslated: $0))
                }
            } catch {
                throw FleetCommandSupport.failure(error)
            }
            journals.append(journal)
            // A subscriber a permanent refusal disabled is enabled again by a new run, as
            // before its state was kept (`juice subscribers retry` acts on the local journal).
            let kept = Fleet.bookkeepingName(name)
            if let retry = try? local.retryState(for: kept), retry.disabled { try? local.setRetryState(nil, for: kept) }
            do throws(PluginError) {
                try built.plugin.attach(
                    to: PluginHost(
                        maker: maker, journal: journal, reportError: report, describeStoreError: Catalog.Errors.storeForPlugin))
            } catch {
                switch error {
                case let .store(failure): throw CLIError(.storeIO, Catalog.Errors.store(failure))
                case let .failed(message): throw CLIError(.config, Catalog.Errors.subscriberReport(name, message))
                }
            }
            if let logger = built.plugin as? EventLogger {
                loggerRunners.append(
                    (
                        name,
                        DurableDelivery(
                            name: name, journal: journal, kinds: logger.loggedKinds, destination: LoggerDestination(logger: logger),
                            reportError: report, describeStoreError: Catalog.Errors.storeForPlugin)
                    ))
            }
        }
        let runners = DeliverCommand.runners(session) + loggerRunners
        // The plugins shut their own runners down when the session closes; these are ours,
        // stopped before the loggers close their logs.
        func stopLoggerRunners() async {
            let deadline = ContinuousClock.now + .milliseconds(Int(context.config.flushDeadlineSeconds * 1000))
            for runner in loggerRunners { await runner.delivery.shutdown(deadline: deadline) }
        }
        if follow {
            let stop = session.stopSignals()
            for journal in journals { journal.startFeeding() }
            for runner in runners { runner.delivery.follow() }
            if !context.settings.quiet {
                stderr.write(Catalog.Delivery.following(runners.map(\.name))(language) + "\n")
            }
            await stop.requested()
            await stopLoggerRunners()
            return .success
        }
        // A batch at a time: fetch, deliver (acknowledging), until the stream has no more
        // or a subscriber cannot go on now.
        while true {
            var fetched = 0
            for journal in journals {
                do {
                    fetched += try journal.fetchAvailable(timeout: 0.5)
                } catch {
                    throw FleetCommandSupport.failure(error)
                }
            }
            let outcomes = await DeliverCommand.deliverAll(
                runners, stop: session.stopSignals(), flushDeadline: context.config.flushDeadlineSeconds
            ) { delivery in
                await delivery.deliverPending(waitingAtMost: DeliverCommand.patience)
            }
            let caughtUp = outcomes.allSatisfy { if case .caughtUp = $0.phase { true } else { false } }
            if fetched == 0 || !caughtUp {
                await stopLoggerRunners()
                return DeliverCommand.report(outcomes, context: context)
            }
        }
        #else
        throw FleetCommandSupport.unavailableBuild
        #endif
    }
}

#if canImport(NATSPlugin)
/// A logger as a durable destination (`juice fleet deliver`): an event is delivered
/// once its line is handed to the log's `write(2)`.
struct LoggerDestination: DurableDestination {
    let logger: EventLogger

    func deliver(_ envelope: EventEnvelope) async throws(DeliveryFailure) {
        guard logger.write(envelope) else {
            throw DeliveryFailure(PluginMessage(english: "the log is not open", korean: "로그가 열려 있지 않습니다"))
        }
    }
}
#endif
