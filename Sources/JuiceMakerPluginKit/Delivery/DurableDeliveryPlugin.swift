import JuiceMakerCore

/// A plugin that must not lose events (the webhook poster, the command subscriber, the
/// `nats` publisher): its config and its destination, nothing more. Four requirements:
/// `declaration` and `init(configuration:context:)` (from `JuiceMakerPlugin`),
/// `deliverySettings` and `makeDestination(for:)`.
///
/// The host delivers (the JuiceDelivery module): it keeps the subscriber's cursor in
/// the journal, reads the events after it, offers them to the destination in the
/// window it asks for, retries on the schedule, keeps dead letters and leases, and
/// hands delivery to a background `juice deliver` after a short command. The plugin
/// knows nothing of that: it says what to deliver (`deliverySettings`) and makes the
/// destination, once, when delivery starts; the host stops it when delivery ends.
public protocol DurableDeliveryPlugin: JuiceMakerPlugin {
    /// What the host delivers with: the kinds, the retry schedule, the window.
    var deliverySettings: DeliverySettings { get }
    /// The destination the host delivers to, made once when delivery starts; what it
    /// connects to is connected on its first `send`. Throw to refuse to start.
    func makeDestination(for host: PluginHost) throws(PluginError) -> any DurableDestination
}

/// What a durable plugin asks of the host's delivery, read from its section.
public struct DeliverySettings: Sendable, Equatable {
    /// The kinds it takes (its `events` filter); `nil` means every kind.
    public var kinds: Set<EventKind>?
    /// When events it failed to take are offered again, before they become dead letters.
    public var schedule: RetrySchedule
    /// Deliveries it keeps in flight at most (`maxInFlight`; 1 when `ordered`), which
    /// the host knows before it makes the destination.
    public var window: Int

    public init(kinds: Set<EventKind>?, schedule: RetrySchedule, window: Int = 1) {
        self.kinds = kinds
        self.schedule = schedule
        self.window = window
    }
}
