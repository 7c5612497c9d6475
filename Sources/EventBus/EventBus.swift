import Dispatch
import Synchronization

/// A typed, in-process observer bus: the broadcast side of the
/// NotificationCenter-versus-delegate trade-off.
///
/// Guarantees:
/// - **Typed.** Subscribers receive `Event` values; there are no names or dictionaries.
/// - **Per-subscriber order.** Each subscriber sees events in the order `publish`
///   accepted them. Publishes from several threads are serialised: every subscriber
///   sees the same total order.
/// - **Synchronous delivery** runs each handler inside `publish`, in subscription
///   order, before `publish` returns. **Queued delivery** appends to the subscriber's
///   bounded mailbox and returns at once (see `Delivery`).
/// - **Re-entrant publish.** A handler may publish. The nested event is delivered
///   after the current event has reached every subscriber (breadth first), and before
///   the outermost `publish` returns. So every subscriber still sees events in publish
///   order, and the nested `publish` call itself returns before its event is delivered.
/// - **Failure isolation.** A handler that throws is reported to `errorSink` with its
///   name; other subscribers, and later events to the same subscriber, are unaffected.
/// - **Thread safety.** `subscribe`, `cancel`, `publish`, `statistics` and `drain`
///   may be called from any thread, and (except `drain`) from inside a handler.
///   A synchronous handler must not block waiting for another thread that publishes
///   on the same bus.
public final class EventBus<Event: Sendable>: Sendable {
    private final class Subscriber {
        let id: Int
        let name: String
        let delivery: Delivery
        let filter: (@Sendable (Event) -> Bool)?
        let handler: @Sendable (Event) throws -> Void
        let mailbox: Mailbox<Event>?
        var cancelled = false
        var delivered = 0
        var failed = 0

        init(
            id: Int, name: String, delivery: Delivery,
            filter: (@Sendable (Event) -> Bool)?,
            handler: @escaping @Sendable (Event) throws -> Void,
            mailbox: Mailbox<Event>?
        ) {
            self.id = id
            self.name = name
            self.delivery = delivery
            self.filter = filter
            self.handler = handler
            self.mailbox = mailbox
        }

        func statistics() -> SubscriberStatistics {
            if let mailbox { return mailbox.statistics(delivery: delivery) }
            return SubscriberStatistics(
                name: name, delivery: delivery, delivered: delivered, failed: failed, dropped: 0, queued: 0)
        }
    }

    private struct Registry {
        var subscribers: [Subscriber] = []
        var nextID = 0
        /// Events published from inside a handler, delivered after the current one.
        var pending: [Event] = []
        var pendingHead = 0
        var delivering = false
        var needsCompaction = false
    }

    private let lock = Mutex<Void>(())
    /// The thread that holds `lock`, or 0. Only the holder ever reads its own
    /// identity back, so a relaxed load can only see its own store or another's.
    private let holder = Atomic<UInt>(0)
    // Safe: `registry` is only read or written by the thread that holds `lock`
    // (every access goes through `withRegistry`, which takes the lock unless the
    // calling thread already holds it, as `holder` proves).
    private nonisolated(unsafe) var registry = Registry()
    private let errorSink: @Sendable (SubscriberFailure) -> Void
    private let busy = DispatchGroup()

    /// Creates a bus. `errorSink` is called, on the delivering thread, with every
    /// error a handler throws. It must not block.
    public init(errorSink: @escaping @Sendable (SubscriberFailure) -> Void = { _ in }) {
        self.errorSink = errorSink
    }

    /// Runs `body` with the registry while holding the lock; re-entrant on the
    /// thread that already holds it (handlers calling back into the bus).
    @inline(__always)
    private func withRegistry<R>(_ body: (inout Registry) -> R) -> R {
        let me = currentThreadIdentity()
        if holder.load(ordering: .relaxed) == me {
            return body(&registry)
        }
        return lock.withLock { _ in
            holder.store(me, ordering: .relaxed)
            defer { holder.store(0, ordering: .relaxed) }
            return body(&registry)
        }
    }

    /// Adds a subscriber.
    ///
    /// - Parameters:
    ///   - name: names the subscriber in errors and statistics.
    ///   - delivery: synchronous (inside `publish`) or queued (own mailbox).
    ///   - filter: evaluated on the publisher's thread before delivery or enqueueing;
    ///     events it rejects are not counted anywhere.
    ///   - handler: receives each event. A throw is reported to the error sink.
    /// - Returns: the token that cancels the subscription. Dropping it does not cancel.
    ///   A subscriber added while an event is being delivered receives the events
    ///   published after it, not that one.
    @discardableResult
    public func subscribe(
        _ name: String,
        delivery: Delivery = .synchronous,
        where filter: (@Sendable (Event) -> Bool)? = nil,
        handler: @escaping @Sendable (Event) throws -> Void
    ) -> Subscription {
        var mailbox: Mailbox<Event>?
        if case .queued(let capacity, let policy) = delivery {
            mailbox = Mailbox(
                name: name, capacity: capacity, policy: policy, busy: busy,
                errorSink: errorSink, handler: handler)
        }
        let subscriber = withRegistry { registry -> Subscriber in
            let subscriber = Subscriber(
                id: registry.nextID, name: name, delivery: delivery,
                filter: filter, handler: handler, mailbox: mailbox)
            registry.nextID += 1
            registry.subscribers.append(subscriber)
            return subscriber
        }
        let id = subscriber.id
        return Subscription(
            name: name,
            onCancel: { [weak self] in self?.cancel(id: id) },
            readStatistics: { [weak self] in self?.statistics(id: id) })
    }

    private func cancel(id: Int) {
        let removed = withRegistry { registry -> Subscriber? in
            guard let index = registry.subscribers.firstIndex(where: { $0.id == id && !$0.cancelled }) else {
                return nil
            }
            let subscriber = registry.subscribers[index]
            subscriber.cancelled = true
            if registry.delivering {
                registry.needsCompaction = true
            } else {
                registry.subscribers.remove(at: index)
            }
            return subscriber
        }
        removed?.mailbox?.cancel()
    }

    /// Delivers `event` to every subscriber whose filter accepts it: synchronous
    /// handlers run before this returns; queued subscribers get it in their mailbox.
    /// Called from inside a handler, it only schedules the event (see the type's
    /// documentation) and returns.
    public func publish(_ event: Event) {
        let me = currentThreadIdentity()
        if holder.load(ordering: .relaxed) == me {
            registry.pending.append(event)
            return
        }
        lock.withLock { _ in
            holder.store(me, ordering: .relaxed)
            registry.delivering = true
            deliver(event)
            finishDelivery()
            holder.store(0, ordering: .relaxed)
        }
    }

    /// Publishes each event in order, taking the lock once.
    public func publish<S: Sequence>(contentsOf events: S) where S.Element == Event {
        let me = currentThreadIdentity()
        if holder.load(ordering: .relaxed) == me {
            registry.pending.append(contentsOf: events)
            return
        }
        lock.withLock { _ in
            holder.store(me, ordering: .relaxed)
            registry.delivering = true
            for event in events { deliver(event) }
            finishDelivery()
            holder.store(0, ordering: .relaxed)
        }
    }

    /// Caller holds the lock. Delivers to the subscribers present now; ones added by
    /// a handler meanwhile are past `count` and wait for the next event.
    @inline(__always)
    private func deliver(_ event: Event) {
        let count = registry.subscribers.count
        var index = 0
        while index < count {
            let subscriber = registry.subscribers[index]
            index += 1
            if subscriber.cancelled { continue }
            if let filter = subscriber.filter, !filter(event) { continue }
            if let mailbox = subscriber.mailbox {
                mailbox.enqueue(event)
                continue
            }
            do {
                try subscriber.handler(event)
                subscriber.delivered += 1
            } catch {
                subscriber.failed += 1
                errorSink(SubscriberFailure(subscriber: subscriber.name, error: error))
            }
        }
    }

    /// Caller holds the lock. Delivers events published from handlers, then tidies up.
    private func finishDelivery() {
        while registry.pendingHead < registry.pending.count {
            let event = registry.pending[registry.pendingHead]
            registry.pendingHead += 1
            deliver(event)
        }
        if registry.pendingHead > 0 {
            registry.pending.removeAll(keepingCapacity: true)
            registry.pendingHead = 0
        }
        if registry.needsCompaction {
            registry.subscribers.removeAll { $0.cancelled }
            registry.needsCompaction = false
        }
        registry.delivering = false
    }

    /// The counters of every live subscriber, in subscription order.
    public func statistics() -> [SubscriberStatistics] {
        // Read under the lock: a synchronous subscriber's counters are written by
        // whichever thread is publishing.
        withRegistry { registry in
            registry.subscribers.filter { !$0.cancelled }.map { $0.statistics() }
        }
    }

    private func statistics(id: Int) -> SubscriberStatistics? {
        withRegistry { registry in
            registry.subscribers.first { $0.id == id && !$0.cancelled }?.statistics()
        }
    }

    /// Waits until every queued mailbox is empty and idle.
    ///
    /// - Returns: `true` once they all are; `false` if `timeout` passed first (a
    ///   handler is stuck, or events keep arriving). Must not be called from a
    ///   queued handler of this bus.
    public func drain(timeout: Duration) -> Bool {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: nanoseconds))
        return busy.wait(timeout: deadline) == .success
    }
}
