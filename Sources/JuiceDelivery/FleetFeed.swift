import FleetConfiguration
import FleetReaders
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import NATSClient

/// Durable subscribers fed from the fleet's stream (`juice fleet deliver`, and `juice
/// subscribers retry NAME@fleet`), each through a durable consumer of its own: the
/// consumer's journal (`ConsumerJournal`) is what the subscriber's runner reads, so the
/// plugins hear no bus and know nothing of NATS. The CLI says which subscribers, and
/// words what fails; the binding of consumers to runners is the delivery service's.
package struct FleetFeed {
    package let journals: [ConsumerJournal]
    /// Every runner: the plugins' own and the ones this feed makes for the plugins fed
    /// through a destination (the logger).
    package let runners: [(name: String, delivery: DurableDelivery)]

    /// A subscriber as the feed takes it.
    package struct Subscriber {
        package let name: String
        /// The events it may have unanswered at once (`DeliverySettings.window`).
        package let window: Int
        package let role: FleetRole
        /// Attaches the plugin to a host (once; a second call does nothing).
        package let attach: (PluginHost) throws(PluginError) -> Void
        /// The plugin's own runner, once attached (`FleetRole.subscriber`).
        package let delivery: () -> DurableDelivery?

        package init(
            name: String, window: Int, role: FleetRole, attach: @escaping (PluginHost) throws(PluginError) -> Void,
            delivery: @escaping () -> DurableDelivery?
        ) {
            self.name = name
            self.window = window
            self.role = role
            self.attach = attach
            self.delivery = delivery
        }
    }

    /// Why the feed could not start; the consumers bound before it are let go.
    package enum Failure: Error {
        /// A consumer could not be bound or created.
        case consumer(NATSError)
        /// A subscriber could not be attached.
        case plugin(name: String, PluginError)
    }

    /// Binds a consumer for each of `subscribers` on `stream` (creating it when missing,
    /// with `settings`) and attaches the subscriber to it. A subscriber a permanent
    /// refusal disabled is enabled again. `bookkeeping` keeps each one's retry state and
    /// dead letters (under `Fleet.bookkeepingName`); `report(name)` says a subscriber's
    /// problems.
    package static func attach(
        _ subscribers: [Subscriber], connection: NATSConnection, stream: String, settings: ConsumerSettings,
        bookkeeping: any DeliveryJournal, report: (String) -> @Sendable (PluginMessage) -> Void,
        describeStoreError: @escaping @Sendable (StoreError) -> PluginMessage
    ) throws(Failure) -> FleetFeed {
        let maker = JuiceMaker(store: InMemoryStore())
        var journals: [ConsumerJournal] = []
        var runners: [(name: String, delivery: DurableDelivery)] = []
        for subscriber in subscribers {
            // Messages held (fetched, not yet acknowledged): two windows, so the next is
            // read while one is in flight; within what the consumer may have out.
            let batch = min(settings.maxAckPending, max(64, 2 * subscriber.window))
            let name = subscriber.name
            let said = report(name)
            let journal: ConsumerJournal
            do throws(NATSError) {
                let consumer = try DurableConsumer(
                    connection: connection, stream: stream, name: Fleet.consumerName(name), settings: settings
                ) { said(PluginMessage(untranslated: $0)) }
                journal = ConsumerJournal(consumer: consumer, subscriber: name, batch: batch, bookkeeping: bookkeeping) {
                    said(PluginMessage(untranslated: $0))
                }
            } catch {
                journals.forEach { $0.stop() }
                throw .consumer(error)
            }
            journals.append(journal)
            let kept = Fleet.bookkeepingName(name)
            if let retry = try? bookkeeping.retryState(for: kept), retry.disabled { try? bookkeeping.setRetryState(nil, for: kept) }
            do throws(PluginError) {
                try subscriber.attach(
                    PluginHost(maker: maker, journal: journal, reportError: said, describeStoreError: describeStoreError))
            } catch {
                journals.forEach { $0.stop() }
                throw .plugin(name: name, error)
            }
            switch subscriber.role {
            case let .destination(destination, kinds):
                let delivery = DurableDelivery(
                    name: name, journal: journal, kinds: kinds, destination: destination, reportError: said,
                    describeStoreError: describeStoreError)
                runners.append((name, delivery))
            case .subscriber:
                if let delivery = subscriber.delivery() { runners.append((name, delivery)) }
            case .none:
                break
            }
        }
        return FleetFeed(journals: journals, runners: runners)
    }

    /// Lets go of every consumer (they stay on the server), handing back what is still
    /// held: call it after `stopRunners`, so nothing handed back is still being delivered.
    package func stop() {
        journals.forEach { $0.stop() }
    }

    /// Stops every runner by `deadline` (the loggers' before the loggers close their
    /// logs): what was in flight then is cancelled and stays on the stream.
    package func stopRunners(deadline: ContinuousClock.Instant) async {
        for (_, delivery) in runners { await delivery.shutdown(deadline: deadline) }
    }

    /// Fetches what each consumer has now (up to `timeout` seconds each): how many
    /// messages came.
    package func fetchAvailable(timeout: Double) throws(NATSError) -> Int {
        var fetched = 0
        for journal in journals { fetched += try journal.fetchAvailable(timeout: timeout) }
        return fetched
    }

    /// Whether every consumer had nothing more after its last fetch.
    package var drained: Bool { journals.allSatisfy(\.drained) }
}
