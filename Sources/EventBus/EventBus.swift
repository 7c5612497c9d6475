import Dispatch
import Locking
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
//
// @unchecked Sendable: every stored property is Sendable except `registry`, a pointer
// to state that is only dereferenced by the thread holding `lock` (all access goes
// through `withRegistry`, `publish` or `publish(contentsOf:)`, which take `lock`
// unless `holder` proves the calling thread already holds it).
public final class EventBus<Event: Sendable>: @unchecked Sendable {
    /// One subscriber, read and written under the lock only. Each entry has its own
    /// stable allocation, so delivery reads single fields through a pointer: no
    /// struct copies, no retains of the other fields, no exclusivity checks, and a
    /// handler appending to the registry cannot move the entry being delivered to.
    @usableFromInline
    struct Entry {
        @usableFromInline let id: Int
        @usableFromInline let name: String
        @usableFromInline let delivery: Delivery
        @usableFromInline let filter: (@Sendable (Event) -> Bool)?
        @usableFromInline let handler: @Sendable (Event) throws -> Void
        @usableFromInline let mailbox: Mailbox<Event>?
        @usableFromInline var cancelled = false
        @usableFromInline var delivered = 0
        @usableFromInline var failed = 0

        init(
            id: Int, name: String, delivery: Delivery, filter: (@Sendable (Event) -> Bool)?,
            handler: @escaping @Sendable (Event) throws -> Void, mailbox: Mailbox<Event>?
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

    @usableFromInline
    struct Registry {
        /// Freed only when removed (never while `delivering`) or with the bus.
        @usableFromInline var entries: ContiguousArray<UnsafeMutablePointer<Entry>> = []
        @usableFromInline var nextID = 0
        /// Events published from inside a handler, delivered after the current one.
        @usableFromInline var pending: [Event] = []
        @usableFromInline var pendingHead = 0
        @usableFromInline var delivering = false
        @usableFromInline var needsCompaction = false

        init() {}
    }

    // The publish path is @inlinable so that each client compiles it specialised for
    // its `Event` type: generic code across the module boundary costs a metadata
    // lookup and a value-witness copy per subscriber per event.
    @usableFromInline let lock = Lock()
    /// The thread that holds `lock`, or 0. Only the holder ever reads its own
    /// identity back, so a relaxed load can only see its own store or another's.
    @usableFromInline let holder = Atomic<UInt>(0)
    @usableFromInline let registry: UnsafeMutablePointer<Registry>
    @usableFromInline let errorSink: @Sendable (SubscriberFailure) -> Void
    private let busy = DispatchGroup()

    /// Creates a bus. `errorSink` is called, on the delivering thread, with every
    /// error a handler throws. It must not block.
    public init(errorSink: @escaping @Sendable (SubscriberFailure) -> Void = { _ in }) {
        self.errorSink = errorSink
        registry = .allocate(capacity: 1)
        registry.initialize(to: Registry())
    }

    deinit {
        for entry in registry.pointee.entries { Self.free(entry) }
        registry.deinitialize(count: 1)
        registry.deallocate()
    }

    /// Runs `body` with the registry while holding the lock; re-entrant on the
    /// thread that already holds it (handlers calling back into the bus).
    @inline(__always)
    private func withRegistry<R>(_ body: (inout Registry) -> R) -> R {
        let me = currentThreadIdentity()
        if holder.load(ordering: .relaxed) == me {
            return body(&registry.pointee)
        }
        return lock.withLock {
            holder.store(me, ordering: .relaxed)
            defer { holder.store(0, ordering: .relaxed) }
            return body(&registry.pointee)
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
    ///   A subscriber added while an event is being delivered does not receive that
    ///   event; it does receive every event still waiting to be delivered after it
    ///   (including ones a handler published earlier in the same delivery).
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
        let id = withRegistry { registry -> Int in
            let id = registry.nextID
            registry.nextID += 1
            let entry = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
            entry.initialize(to: Entry(
                id: id, name: name, delivery: delivery, filter: filter, handler: handler, mailbox: mailbox))
            registry.entries.append(entry)
            return id
        }
        return Subscription(
            name: name,
            onCancel: { [weak self] in self?.cancel(id: id) },
            readStatistics: { [weak self] in self?.statistics(id: id) })
    }

    private func cancel(id: Int) {
        let mailbox = withRegistry { registry -> Mailbox<Event>?? in
            guard let index = registry.entries.firstIndex(where: { $0.pointee.id == id && !$0.pointee.cancelled }) else {
                return nil
            }
            let entry = registry.entries[index]
            entry.pointee.cancelled = true
            let mailbox = entry.pointee.mailbox
            if registry.delivering {
                registry.needsCompaction = true
            } else {
                registry.entries.remove(at: index)
                Self.free(entry)
            }
            return .some(mailbox)
        }
        mailbox??.cancel()
    }

    /// Delivers `event` to every subscriber whose filter accepts it: synchronous
    /// handlers run before this returns; queued subscribers get it in their mailbox.
    /// Called from inside a handler, it only schedules the event (see the type's
    /// documentation) and returns.
    @inlinable
    public func publish(_ event: Event) {
        let me = currentThreadIdentity()
        if holder.load(ordering: .relaxed) == me {
            registry.pointee.pending.append(event)
            return
        }
        lock.withLock {
            holder.store(me, ordering: .relaxed)
            registry.pointee.delivering = true
            deliver(event)
            finishDelivery()
            holder.store(0, ordering: .relaxed)
        }
    }

    /// Publishes each event in order, taking the lock once.
    @inlinable
    public func publish<S: Sequence>(contentsOf events: S) where S.Element == Event {
        let me = currentThreadIdentity()
        if holder.load(ordering: .relaxed) == me {
            registry.pointee.pending.append(contentsOf: events)
            return
        }
        lock.withLock {
            holder.store(me, ordering: .relaxed)
            registry.pointee.delivering = true
            for event in events { deliver(event) }
            finishDelivery()
            holder.store(0, ordering: .relaxed)
        }
    }

    /// Caller holds the lock. Delivers to the subscribers present now; ones added by
    /// a handler meanwhile are past `count` and wait for the next event. Entries are
    /// read in place (a handler may append to the array, never remove from it while
    /// `delivering` is set), so the loop copies nothing.
    @inlinable @inline(__always)
    func deliver(_ event: Event) {
        let count = registry.pointee.entries.count
        var index = 0
        while index < count {
            let entry = registry.pointee.entries[index]
            index += 1
            if entry.pointee.cancelled { continue }
            if let filter = entry.pointee.filter, !filter(event) { continue }
            if let mailbox = entry.pointee.mailbox {
                mailbox.enqueue(event)
                continue
            }
            do {
                try entry.pointee.handler(event)
                entry.pointee.delivered += 1
            } catch {
                entry.pointee.failed += 1
                errorSink(SubscriberFailure(subscriber: entry.pointee.name, error: error))
            }
        }
    }

    /// Caller holds the lock. Delivers events published from handlers, then tidies up.
    @inlinable
    func finishDelivery() {
        while registry.pointee.pendingHead < registry.pointee.pending.count {
            let event = registry.pointee.pending[registry.pointee.pendingHead]
            registry.pointee.pendingHead += 1
            deliver(event)
        }
        if registry.pointee.pendingHead > 0 {
            registry.pointee.pending.removeAll(keepingCapacity: true)
            registry.pointee.pendingHead = 0
        }
        if registry.pointee.needsCompaction {
            for entry in registry.pointee.entries where entry.pointee.cancelled { Self.free(entry) }
            registry.pointee.entries.removeAll { $0.pointee.cancelled }
            registry.pointee.needsCompaction = false
        }
        registry.pointee.delivering = false
    }

    @usableFromInline
    static func free(_ entry: UnsafeMutablePointer<Entry>) {
        entry.deinitialize(count: 1)
        entry.deallocate()
    }

    /// The counters of every live subscriber, in subscription order.
    public func statistics() -> [SubscriberStatistics] {
        withRegistry { registry in
            registry.entries.filter { !$0.pointee.cancelled }.map { $0.pointee.statistics() }
        }
    }

    private func statistics(id: Int) -> SubscriberStatistics? {
        withRegistry { registry in
            registry.entries.first { $0.pointee.id == id && !$0.pointee.cancelled }?.pointee.statistics()
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
