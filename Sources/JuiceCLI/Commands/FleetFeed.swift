#if canImport(NATSClient)
import FleetConfiguration
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import FleetReaders
import NATSClient
import JuicePrimitives

/// The configured webhook, command and logger subscribers fed from the fleet's stream,
/// each through its own durable consumer (`juice fleet deliver`, and `juice subscribers
/// retry` of a fleet delivery). The plugins hear no bus: their runners are woken by
/// the consumers' journals.
struct FleetFeed {
    let journals: [ConsumerJournal]
    /// Every runner: the plugins' own and the loggers' (made by this feed for the plugins
    /// fed through a destination).
    let runners: [(name: String, delivery: DurableDelivery)]

    /// The subscribers `juice fleet deliver` feeds: those with a fleet role (durable
    /// ones but the NATS publisher, and loggers).
    static func fedPlugins(_ session: Session) -> [BuiltPlugin] { FleetCommandSupport.fedPlugins(session) }

    /// Binds a consumer for each of `plugins` (creating it when missing) and attaches
    /// the plugin to it. A subscriber a permanent refusal disabled is enabled again.
    static func attach(_ plugins: [BuiltPlugin], session: Session, reader: FleetCommandSupport.Reader) throws(CLIError) -> FleetFeed {
        let context = session.context
        let local = try session.journal()
        let maker = JuiceMaker(store: InMemoryStore())
        let stderr = context.console.standardError
        let language = context.language
        var journals: [ConsumerJournal] = []
        var runners: [(name: String, delivery: DurableDelivery)] = []
        let maxAckPending = reader.consumerSettings.maxAckPending
        try FleetCommandSupport.checkWindows(plugins, context: context)
        for built in plugins {
            // Messages held (fetched, not yet acknowledged): two windows, so the next is
            // read while one is in flight; within what the consumer may have out.
            let batch = min(maxAckPending, max(64, 2 * (built.durable?.window ?? 1)))
            let name = built.entry.name
            let report: @Sendable (PluginMessage) -> Void = { detail in
                stderr.write("juice: \(Catalog.Errors.subscriberReport(name, detail)(language))\n")
            }
            let journal: ConsumerJournal
            do {
                let consumer = try DurableConsumer(
                    connection: reader.connection, stream: reader.stream, name: Fleet.consumerName(name),
                    settings: reader.consumerSettings
                ) { report(PluginMessage(untranslated: $0)) }
                journal = ConsumerJournal(consumer: consumer, subscriber: name, batch: batch, bookkeeping: local) {
                    report(PluginMessage(untranslated: $0))
                }
            } catch {
                journals.forEach { $0.stop() }
                throw FleetCommandSupport.failure(error)
            }
            journals.append(journal)
            let kept = Fleet.bookkeepingName(name)
            if let retry = try? local.retryState(for: kept), retry.disabled { try? local.setRetryState(nil, for: kept) }
            do throws(PluginError) {
                try built.attach(
                    to: PluginHost(
                        maker: maker, journal: journal, reportError: report, describeStoreError: Catalog.Errors.storeForPlugin))
            } catch {
                journals.forEach { $0.stop() }
                switch error {
                case let .store(failure): throw CLIError(.storeIO, Catalog.Errors.store(failure))
                case let .failed(message): throw CLIError(.config, Catalog.Errors.subscriberReport(name, message))
                }
            }
            switch built.fleetRole {
            case let .destination(destination, kinds):
                let delivery = DurableDelivery(
                    name: name, journal: journal, kinds: kinds, destination: destination, reportError: report,
                    describeStoreError: Catalog.Errors.storeForPlugin)
                runners.append((name, delivery))
            case .subscriber:
                if let delivery = built.durable?.delivery { runners.append((name, delivery)) }
            case .none:
                break
            }
        }
        return FleetFeed(journals: journals, runners: runners)
    }

    /// Lets go of every consumer (they stay on the server), handing back what is still
    /// held: call it after `stopRunners`, so nothing handed back is still being delivered.
    func stop() {
        journals.forEach { $0.stop() }
    }

    /// Stops every runner by the flush deadline (the loggers' before the loggers close
    /// their logs): what was in flight then is cancelled and stays on the stream.
    func stopRunners(_ context: CommandContext) async {
        let deadline = ContinuousClock.now + .milliseconds(Int(context.config.flushDeadlineSeconds * 1000))
        for (_, delivery) in runners { await delivery.shutdown(deadline: deadline) }
    }

    /// A batch at a time: fetch, deliver (acknowledging), until the stream has no more
    /// or a subscriber cannot go on now; exits as `juice deliver`. The first batch is
    /// handed over by `first` (`retry`), the rest by `deliverPending`.
    func deliverAvailable(
        _ session: Session,
        first: @escaping @Sendable (DurableDelivery) async -> DeliveryPhase = { delivery in
            await delivery.deliverPending(waitingAtMost: DeliverCommand.patience)
        }
    ) async throws(CLIError) -> ExitCode {
        let context = session.context
        var deliver = first
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
                runners, stop: session.stopSignals(), flushDeadline: context.config.flushDeadlineSeconds, deliver)
            deliver = { delivery in await delivery.deliverPending(waitingAtMost: DeliverCommand.patience) }
            let caughtUp = outcomes.allSatisfy { if case .caughtUp = $0.phase { true } else { false } }
            // Done when nothing came, a subscriber cannot go on now, or the consumer had
            // nothing more after what came (not one more fetch waited out for nothing).
            if fetched == 0 || !caughtUp || journals.allSatisfy(\.drained) {
                await stopRunners(context)
                return DeliverCommand.report(outcomes, context: context)
            }
        }
    }
}
#endif
