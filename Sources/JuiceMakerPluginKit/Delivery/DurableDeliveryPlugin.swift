import EventBus
import JuiceMakerCore

/// A plugin that must not lose events: it delivers through a `DurableDelivery`
/// runner with its own cursor in the journal (the webhook poster, the command
/// subscriber).
///
/// Besides what `JuiceMakerPlugin` promises, the host may drive the runner directly:
/// `juice deliver` calls `deliverPending`, `juice deliver --follow` calls `follow`,
/// `juice subscribers retry` calls `retry`. `shutdown(deadline:)` still ends it.
public protocol DurableDeliveryPlugin: JuiceMakerPlugin {
    /// The runner, once `attach` has run; `nil` before.
    var delivery: DurableDelivery? { get }
    /// The kinds it delivers (its `events` filter); `nil` means every kind.
    var eventKinds: Set<EventKind>? { get }
    /// Deliveries it keeps in flight at most (`maxInFlight`; 1 when `ordered`).
    var window: Int { get }
}

extension DurableDeliveryPlugin {
    /// Itself.
    public var durable: (any DurableDeliveryPlugin)? { self }

    /// One at a time, unless the plugin keeps a window.
    public var window: Int { 1 }
}

extension DurableDelivery {
    /// The attach step every durable plugin shares: a runner named `name` on the
    /// host's journal, woken by a synchronous subscription to the kinds it delivers
    /// (one atomic load on the order path while a pass is due), started at once so
    /// pending events go out now.
    public static func attach(
        name: String, kinds: Set<EventKind>?, schedule: RetrySchedule, destination: any DurableDestination,
        to host: PluginHost
    ) throws(PluginError) -> (delivery: DurableDelivery, wakeUps: Subscription) {
        let delivery = DurableDelivery(
            name: name, journal: host.journal, kinds: kinds, schedule: schedule,
            destination: destination, reportError: host.reportError, describeStoreError: host.describeStoreError)
        let wakeUps = try host.subscribe(name, delivery: .synchronous, kinds: kinds) { _ in delivery.wake() }
        delivery.start()
        return (delivery, wakeUps)
    }
}
