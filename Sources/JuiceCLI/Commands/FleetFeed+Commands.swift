import FleetConfiguration
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import NATSClient
import JuicePrimitives

/// The commands' side of the fleet's feed (`FleetFeed`, the delivery service's): the
/// configured webhook, command and logger subscribers it feeds, the session's store for
/// their bookkeeping, their lines on stderr, and how a run ends.
extension FleetFeed {
    /// The subscribers `juice fleet deliver` feeds: those with a fleet role (durable
    /// ones but the NATS publisher, and loggers).
    static func fedPlugins(_ session: Session) -> [BuiltPlugin] { FleetCommandSupport.fedPlugins(session) }

    /// Binds a consumer for each of `plugins` (creating it when missing) and attaches
    /// the plugin to it. A subscriber a permanent refusal disabled is enabled again.
    static func attach(_ plugins: [BuiltPlugin], session: Session, reader: FleetCommandSupport.Reader) throws(CLIError) -> FleetFeed {
        let context = session.context
        let stderr = context.console.standardError
        let language = context.language
        try FleetCommandSupport.checkWindows(plugins, context: context)
        let subscribers = plugins.map { built in
            FleetFeed.Subscriber(
                name: built.entry.name, window: built.durable?.window ?? 1, role: built.fleetRole,
                attach: { host throws(PluginError) in try built.attach(to: host) }, delivery: { built.durable?.delivery })
        }
        let bookkeeping = try session.journal()
        do throws(FleetFeed.Failure) {
            return try FleetFeed.attach(
                subscribers, connection: reader.connection, stream: reader.stream, settings: reader.consumerSettings,
                bookkeeping: bookkeeping,
                report: { name in
                    { detail in stderr.write("juice: \(Catalog.Errors.subscriberReport(name, detail)(language))\n") }
                }, describeStoreError: Catalog.Errors.storeForPlugin)
        } catch {
            switch error {
            case .consumer(let failure): throw FleetCommandSupport.failure(failure)
            case .plugin(_, .store(let failure)): throw CLIError(.storeIO, Catalog.Errors.store(failure))
            case let .plugin(name, .failed(message)): throw CLIError(.config, Catalog.Errors.subscriberReport(name, message))
            }
        }
    }

    /// Stops every runner by the flush deadline.
    func stopRunners(_ context: CommandContext) async {
        await stopRunners(deadline: ContinuousClock.now + .milliseconds(Int(context.config.flushDeadlineSeconds * 1000)))
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
            let fetched: Int
            do throws(NATSError) {
                fetched = try fetchAvailable(timeout: 0.5)
            } catch {
                throw FleetCommandSupport.failure(error)
            }
            let outcomes = await DeliverCommand.deliverAll(
                runners, stop: session.stopSignals(), flushDeadline: context.config.flushDeadlineSeconds, deliver)
            deliver = { delivery in await delivery.deliverPending(waitingAtMost: DeliverCommand.patience) }
            let caughtUp = outcomes.allSatisfy { if case .caughtUp = $0.phase { true } else { false } }
            // Done when nothing came, a subscriber cannot go on now, or the consumer had
            // nothing more after what came (not one more fetch waited out for nothing).
            if fetched == 0 || !caughtUp || drained {
                await stopRunners(context)
                return DeliverCommand.report(outcomes, context: context)
            }
        }
    }
}
