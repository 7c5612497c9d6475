import JuiceMakerCore

/// A plugin that must not lose events (the webhook poster, the command subscriber, the
/// `nats` publisher): its config and its destination, nothing more. The host delivers
/// (the JuiceDelivery module): it keeps the subscriber's cursor in the journal, reads
/// the events after it, offers them to the destination in the window it asks for,
/// retries on `retrySchedule`, keeps dead letters and leases, and hands delivery to a
/// background `juice deliver` after a short command. The plugin knows nothing of that.
///
/// The host never calls `attach(to:)` or `shutdown(deadline:)` of a durable plugin (both
/// are provided, doing nothing): it makes the destination with `makeDestination(for:)`
/// when delivery starts, and stops it (`DurableDestination.stop`) when delivery ends.
public protocol DurableDeliveryPlugin: JuiceMakerPlugin {
    /// The kinds it takes (its `events` filter); `nil` means every kind.
    var eventKinds: Set<EventKind>? { get }
    /// When events it failed to take are offered again, before they become dead letters.
    var retrySchedule: RetrySchedule { get }
    /// Deliveries it keeps in flight at most (`maxInFlight`; 1 when `ordered`), which
    /// the host knows before it makes the destination. Provided: 1.
    var window: Int { get }
    /// The destination the host delivers to, made once when delivery starts; what it
    /// connects to is connected on its first `send`. Throw to refuse to start.
    func makeDestination(for host: PluginHost) throws(PluginError) -> any DurableDestination
}

extension DurableDeliveryPlugin {
    /// Itself.
    public var durable: (any DurableDeliveryPlugin)? { self }

    /// One at a time, unless the plugin keeps a window.
    public var window: Int { 1 }

    /// Nothing: the host delivers (`makeDestination(for:)`).
    public func attach(to host: PluginHost) throws(PluginError) {}

    /// Nothing: the host stops delivery and the destination.
    public func shutdown(deadline: ContinuousClock.Instant) async {}
}
