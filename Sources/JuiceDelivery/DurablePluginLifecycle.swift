import EventBus
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking

/// The life the host gives every durable subscriber (the webhook poster, the command
/// subscriber, the `nats` publisher): attach once, deliver through a `DurableDelivery`
/// runner woken by the bus, shut down by a deadline.
///
/// Guarantees:
/// - **Once.** Only the first `attach` does anything, even when it throws: a subscriber
///   is never attached twice, and one that could not start does not try again.
/// - **In order.** That first `attach` reports the start warnings through the host,
///   makes the destination, starts the runner over it (pending events go out at once)
///   and subscribes its wake-up to the kinds it delivers.
/// - **Bounded shutdown.** `shutdown` cancels the wake-up, gives the runner until
///   `deadline` to deliver what it can, then stops the destination by the same
///   deadline. Before any `attach` it does nothing; it may be called again.
package final class DurablePluginLifecycle: Sendable {
    /// The subscriber's name, which is also its cursor's name.
    package let name: String
    /// The kinds delivered; `nil` means every kind.
    package let kinds: Set<EventKind>?
    /// When failed events are tried again.
    package let schedule: RetrySchedule

    private let state = Locked(State())

    private struct State {
        var attached = false
        var delivery: DurableDelivery?
        var wakeUps: Subscription?
        var destination: (any DurableDestination)?
    }

    package init(name: String, kinds: Set<EventKind>?, schedule: RetrySchedule) {
        self.name = name
        self.kinds = kinds
        self.schedule = schedule
    }

    /// The runner, once attached; `nil` before.
    package var delivery: DurableDelivery? { state.withLock { $0.delivery } }

    /// The destination, once attached; `nil` before.
    package var destination: (any DurableDestination)? { state.withLock { $0.destination } }

    /// On the first call only: reports each of `warnings`, makes the destination with
    /// `makeDestination` and starts delivering to it. Later calls return at once.
    package func attach(
        to host: PluginHost, warnings: [PluginMessage] = [],
        destination makeDestination: (PluginHost) throws(PluginError) -> any DurableDestination
    ) throws(PluginError) {
        let isFirst = state.withLock { state -> Bool in
            defer { state.attached = true }
            return !state.attached
        }
        guard isFirst else { return }
        for warning in warnings { host.reportError(warning) }
        let destination = try makeDestination(host)
        let (delivery, wakeUps) = try DurableDelivery.attach(
            name: name, kinds: kinds, schedule: schedule, destination: destination, to: host)
        state.withLock { state in
            state.delivery = delivery
            state.wakeUps = wakeUps
            state.destination = destination
        }
    }

    /// Delivers what it can by `deadline`, then stops the destination; the rest waits
    /// in the journal for the next runner.
    package func shutdown(deadline: ContinuousClock.Instant) async {
        let (delivery, wakeUps, destination) = state.withLock { state in
            defer { state.wakeUps = nil }
            return (state.delivery, state.wakeUps, state.destination)
        }
        wakeUps?.cancel()
        await delivery?.shutdown(deadline: deadline)
        await destination?.stop(deadline: deadline)
    }
}

extension DurableDelivery {
    /// The attach step every durable subscriber shares: a runner named `name` on the
    /// host's journal, woken by a synchronous subscription to the kinds it delivers
    /// (one atomic load on the order path while a pass is due), started at once so
    /// pending events go out now.
    package static func attach(
        name: String, kinds: Set<EventKind>?, schedule: RetrySchedule, destination: any DurableDestination,
        to host: PluginHost
    ) throws(PluginError) -> (delivery: DurableDelivery, wakeUps: Subscription) {
        let delivery = DurableDelivery(
            name: name, journal: host.deliveryJournal, kinds: kinds, schedule: schedule,
            destination: destination, reportError: host.reportError, describeStoreError: host.describeStoreError)
        let wakeUps = try host.subscribe(name, delivery: .synchronous, kinds: kinds) { _ in delivery.wake() }
        delivery.start()
        return (delivery, wakeUps)
    }
}

/// A durable plugin as the host runs it: the plugin (its config and its destination)
/// and the delivery the host owns for it. `attach`, `shutdown` and `delivery` are the
/// host's; the plugin's own members read through (`delivered.url`).
@dynamicMemberLookup
package final class Delivered<Plugin: Sendable>: Sendable {
    /// The plugin.
    package let plugin: Plugin
    /// The plugin as the durable contract.
    package let durable: any DurableDeliveryPlugin
    /// Said once, when delivery starts (`PluginDeclaration.startWarnings`).
    package let warnings: [PluginMessage]
    private let lifecycle: DurablePluginLifecycle

    /// `plugin`, delivered under `name` (its subscriber's name, also its cursor's).
    package init(_ plugin: Plugin, name: String, warnings: [PluginMessage] = []) where Plugin: DurableDeliveryPlugin {
        self.plugin = plugin
        durable = plugin
        self.warnings = warnings
        let settings = plugin.deliverySettings
        lifecycle = DurablePluginLifecycle(name: name, kinds: settings.kinds, schedule: settings.schedule)
    }

    /// A plugin of `type` built from its section, delivered under the context's name,
    /// with the start warnings its declaration reads from the section.
    package convenience init(
        _ type: Plugin.Type, configuration: PluginConfiguration, context: PluginContext
    ) throws(ConfigurationError) where Plugin: DurableDeliveryPlugin {
        self.init(
            try type.init(configuration: configuration, context: context), name: context.name,
            warnings: type.declaration.startWarnings(configuration))
    }

    /// A plugin the registry built, of any durable type.
    package init(erased plugin: any DurableDeliveryPlugin, name: String, warnings: [PluginMessage]) where Plugin == any DurableDeliveryPlugin {
        self.plugin = plugin
        durable = plugin
        self.warnings = warnings
        let settings = plugin.deliverySettings
        lifecycle = DurablePluginLifecycle(name: name, kinds: settings.kinds, schedule: settings.schedule)
    }

    /// A member of the plugin.
    package subscript<Value>(dynamicMember member: KeyPath<Plugin, Value>) -> Value { plugin[keyPath: member] }

    /// The runner, once attached; `nil` before.
    package var delivery: DurableDelivery? { lifecycle.delivery }

    /// The destination, once attached; `nil` before.
    package var destination: (any DurableDestination)? { lifecycle.destination }

    /// The window the plugin asked for (`DeliverySettings.window`).
    package var window: Int { durable.deliverySettings.window }

    /// Reports the plugin's start warnings, makes its destination and starts delivering
    /// (pending events go out at once) with a wake-up on the bus. Only the first call
    /// does anything.
    package func attach(to host: PluginHost) throws(PluginError) {
        let durable = durable
        try lifecycle.attach(to: host, warnings: warnings) { host throws(PluginError) in
            try durable.makeDestination(for: host)
        }
    }

    /// Delivers what it can by `deadline`, then stops the destination; the rest waits in
    /// the journal for the next `juice` command or `juice deliver`.
    package func shutdown(deadline: ContinuousClock.Instant) async {
        await lifecycle.shutdown(deadline: deadline)
    }
}
