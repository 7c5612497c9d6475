/// The token `EventBus.subscribe` returns.
///
/// Dropping the token does **not** cancel the subscription: the bus keeps delivering
/// until `cancel()` is called (a plugin may subscribe and forget). `cancel()` is safe
/// from any thread, from inside any handler, and more than once.
public final class Subscription: Sendable {
    /// The name the subscriber gave.
    public let name: String
    private let onCancel: @Sendable () -> Void
    private let readStatistics: @Sendable () -> SubscriberStatistics?

    init(
        name: String,
        onCancel: @escaping @Sendable () -> Void,
        readStatistics: @escaping @Sendable () -> SubscriberStatistics?
    ) {
        self.name = name
        self.onCancel = onCancel
        self.readStatistics = readStatistics
    }

    /// Stops delivery. For a synchronous subscriber, once `cancel()` returns no
    /// publish on any thread will call its handler again (a publish already running
    /// on another thread finishes first; `cancel()` waits for it). For a queued
    /// subscriber, events still waiting in its mailbox are discarded; an event being
    /// handled at that moment finishes.
    public func cancel() {
        onCancel()
    }

    /// The subscriber's counters, or `nil` once it has been cancelled.
    public var statistics: SubscriberStatistics? {
        readStatistics()
    }
}
