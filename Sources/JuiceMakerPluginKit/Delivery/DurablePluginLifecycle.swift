import EventBus
import JuiceMakerCore
import JuicePrimitives
import Locking

/// The life every durable plugin shares (the webhook poster, the command subscriber,
/// the `nats` publisher): attach once, deliver through a `DurableDelivery` runner
/// woken by the bus, shut down by a deadline. A plugin keeps one and forwards its
/// `attach(to:)`, `shutdown(deadline:)` and `delivery` to it.
///
/// Guarantees:
/// - **Once.** Only the first `attach` does anything, even when it throws: a plugin
///   is never attached twice, and one that could not start does not try again.
/// - **In order.** That first `attach` reports the start warnings through the host,
///   makes the destination, starts the runner over it (pending events go out at once)
///   and subscribes its wake-up to the kinds it delivers.
/// - **Bounded shutdown.** `shutdown` cancels the wake-up, gives the runner until
///   `deadline` to deliver what it can, then stops the destination by the same
///   deadline. Before any `attach` it does nothing; it may be called again.
public final class DurablePluginLifecycle<Destination: DurableDestination>: Sendable {
    /// The subscriber's name, which is also its cursor's name.
    public let name: String
    /// The kinds delivered; `nil` means every kind.
    public let kinds: Set<EventKind>?
    /// When failed events are tried again.
    public let schedule: RetrySchedule

    private let state = Locked(State())

    private struct State {
        var attached = false
        var delivery: DurableDelivery?
        var wakeUps: Subscription?
        var destination: Destination?
    }

    public init(name: String, kinds: Set<EventKind>?, schedule: RetrySchedule) {
        self.name = name
        self.kinds = kinds
        self.schedule = schedule
    }

    /// The runner, once attached; `nil` before.
    public var delivery: DurableDelivery? { state.withLock { $0.delivery } }

    /// The destination, once attached; `nil` before.
    public var destination: Destination? { state.withLock { $0.destination } }

    /// On the first call only: reports each of `warnings`, makes the destination with
    /// `makeDestination` and starts delivering to it. Later calls return at once.
    public func attach(
        to host: PluginHost, warnings: [PluginMessage] = [],
        destination makeDestination: (PluginHost) throws(PluginError) -> Destination
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
    public func shutdown(deadline: ContinuousClock.Instant) async {
        let (delivery, wakeUps, destination) = state.withLock { state in
            defer { state.wakeUps = nil }
            return (state.delivery, state.wakeUps, state.destination)
        }
        wakeUps?.cancel()
        await delivery?.shutdown(deadline: deadline)
        await destination?.stop(deadline: deadline)
    }
}
