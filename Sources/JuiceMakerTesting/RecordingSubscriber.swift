import EventBus
import JuiceMakerCore
import Locking

/// A subscriber that keeps every envelope it hears, in arrival order: the test double
/// for anything that listens to a `JuiceMaker` or an `EventBus<EventEnvelope>`.
///
/// Recording is thread-safe, so it works with synchronous delivery (the committing
/// thread records) and queued delivery (the mailbox records). `waitUntil(count:timeout:)`
/// waits a bounded time for queued events, without spinning.
public final class RecordingSubscriber: Sendable {
    /// The shared storage the handler writes to; created before the subscription so
    /// the handler never needs `self`.
    private final class Recording: Sendable {
        struct State {
            var events: [EventEnvelope] = []
            var initialStock: Stock?
        }

        /// What was recorded; `change` wakes `waitUntil` callers.
        let state = LockedCondition(State())

        func record(_ envelope: EventEnvelope) {
            state.change { $0.events.append(envelope) }
        }

        func recordInitialStock(_ stock: Stock) {
            state.withLock { $0.initialStock = stock }
        }
    }

    /// The name the subscriber gave the bus.
    public let name: String
    /// The bus token; `cancel()` stops the recording.
    public let subscription: Subscription
    private let recording: Recording

    /// Subscribes to `maker`.
    ///
    /// - Parameters:
    ///   - receivingCurrentStock: when `true`, the stock at subscription is kept in
    ///     `initialStock` (no change falls between it and the
    ///     first recorded event).
    ///   - kinds: only these kinds are recorded; all when `nil`.
    public init(
        _ name: String = "recorder",
        subscribingTo maker: JuiceMaker,
        delivery: Delivery = .synchronous,
        kinds: Set<EventKind>? = nil,
        receivingCurrentStock: Bool = false
    ) throws(JuiceMakerError) {
        let recording = Recording()
        self.name = name
        self.recording = recording
        var currentStock: (@Sendable (Stock) -> Void)?
        if receivingCurrentStock {
            currentStock = { stock in recording.recordInitialStock(stock) }
        }
        let handler: @Sendable (EventEnvelope) throws -> Void = { envelope in recording.record(envelope) }
        self.subscription = try maker.subscribe(
            name, delivery: delivery, kinds: kinds, currentStock: currentStock, handler: handler)
    }

    /// Subscribes to `bus` directly.
    public init(
        _ name: String = "recorder",
        subscribingTo bus: EventBus<EventEnvelope>,
        delivery: Delivery = .synchronous,
        where filter: (@Sendable (EventEnvelope) -> Bool)? = nil
    ) {
        let recording = Recording()
        self.name = name
        self.recording = recording
        self.subscription = bus.subscribe(name, delivery: delivery, where: filter) { recording.record($0) }
    }

    /// Every envelope recorded so far, in the order the handler received them.
    public var events: [EventEnvelope] {
        recording.state.withLock { $0.events }
    }

    /// How many envelopes were recorded so far.
    public var count: Int {
        recording.state.withLock { $0.events.count }
    }

    /// The stock handed over at subscription, when it was asked for.
    public var initialStock: Stock? {
        recording.state.withLock { $0.initialStock }
    }

    /// Waits until at least `count` envelopes are recorded, or `timeout` passes.
    ///
    /// - Returns: whether `count` was reached. Never waits longer than `timeout`.
    public func waitUntil(count: Int, timeout: Duration) -> Bool {
        recording.state.wait(until: ContinuousClock.now.advanced(by: timeout)) { $0.events.count >= count }
    }

    /// Stops recording (cancels the subscription). What was recorded stays.
    public func cancel() {
        subscription.cancel()
    }
}
