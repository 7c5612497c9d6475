import Dispatch
import Locking
import Synchronization

/// A typed, in-process observer bus: the broadcast side of the
/// NotificationCenter-versus-delegate trade-off.
///
/// Guarantees:
/// - **Typed.** Subscribers receive `Event` values; there are no names or dictionaries.
/// - **One total order.** Publishes from several threads are serialised: every
///   subscriber sees events in the same order, the order `publish` accepted them.
/// - **Synchronous delivery** runs each handler inside `publish`, in subscription
///   order, before `publish` returns. **Queued delivery** appends to the subscriber's
///   bounded mailbox and returns at once (see `Delivery`).
/// - **Re-entrant publish.** A handler may publish. The nested event is delivered
///   after the current event has reached every subscriber (breadth first), and before
///   the outermost `publish` returns. So every subscriber still sees events in publish
///   order, and the nested `publish` call itself returns before its event is delivered.
/// - **Failure isolation.** A handler that throws is reported to `errorSink` with its
///   name; other subscribers, and later events to the same subscriber, are unaffected.
/// - **Nobody waits for a handler but a publisher.** `subscribe` and `statistics`
///   never wait for a handler to return, even one that blocks forever. `cancel` waits
///   at most for a delivery *to that subscriber* already running on another thread,
///   never for another subscriber's handler. Another thread's `publish` waits for the
///   publish in progress, as the total order requires.
/// - **Thread safety.** Every method may be called from any thread, and (except
///   `drain`) from inside a handler. A synchronous handler must not block waiting for
///   another thread that publishes on the same bus.
///
/// How: two locks that are never held together by one call. The *publish lock*
/// serialises publishers and is held while synchronous handlers run; the *registry
/// lock* guards the subscriber list and is only held for a few instructions. A
/// publisher delivers from its own snapshot of the list, refreshed when the list
/// changed (one atomic load per event says whether it did). A cancelled subscriber's
/// memory is freed by the next publisher, which holds the only snapshot.
//
// @unchecked Sendable: every stored property is Sendable except the two pointers.
// `registry` is only dereferenced with `registryLock` held. `publisher` is only
// dereferenced by the thread holding `publishLock` (`publish` takes it unless
// `holder` proves the calling thread already holds it). Entries (`Entry`) are
// written only before they are published under `registryLock`, except their atomics.
public final class EventBus<Event: Sendable>: @unchecked Sendable {
    /// One subscriber. Each has its own stable allocation, so delivery reads single
    /// fields through a pointer: no copies, no retains, no exclusivity checks.
    @usableFromInline
    struct Entry: ~Copyable {
        @usableFromInline let id: Int
        @usableFromInline let name: String
        @usableFromInline let delivery: Delivery
        /// The filter and handler, stored in the entry itself: a delivery calls them
        /// through `accepts` and `handle`, which borrow the entry in place, so no call
        /// retains or releases them (the entry outlives every call; see `free`).
        @usableFromInline let filter: (@Sendable (Event) -> Bool)?
        @usableFromInline let handler: @Sendable (Event) throws -> Void
        @usableFromInline let hasFilter: Bool
        @usableFromInline let mailbox: Mailbox<Event>?
        /// Set once by `cancel`; a publisher checks it after announcing a delivery.
        @usableFromInline let cancelled = Atomic<Bool>(false)
        /// Written only by the thread holding the publish lock; read by `statistics`.
        @usableFromInline let delivered = Atomic<Int>(0)
        @usableFromInline let failed = Atomic<Int>(0)

        init(
            id: Int, name: String, delivery: Delivery, filter: (@Sendable (Event) -> Bool)?,
            handler: @escaping @Sendable (Event) throws -> Void, mailbox: Mailbox<Event>?
        ) {
            self.id = id
            self.name = name
            self.delivery = delivery
            self.filter = filter
            self.handler = handler
            self.hasFilter = filter != nil
            self.mailbox = mailbox
        }

        @inlinable @inline(__always)
        func accepts(_ event: Event) -> Bool {
            if let filter { return filter(event) }
            return true
        }

        @inlinable @inline(__always)
        func handle(_ event: Event) throws {
            try handler(event)
        }

        func statistics() -> SubscriberStatistics {
            if let mailbox { return mailbox.statistics(delivery: delivery) }
            return SubscriberStatistics(
                name: name, delivery: delivery, delivered: delivered.load(ordering: .relaxed),
                failed: failed.load(ordering: .relaxed), dropped: 0, queued: 0)
        }
    }

    /// The subscriber list, under `registryLock`.
    struct Registry {
        /// Live subscribers, in subscription order.
        var entries: ContiguousArray<UnsafeMutablePointer<Entry>> = []
        /// Cancelled subscribers a publisher's snapshot may still point at; the next
        /// publisher that refreshes its snapshot frees them.
        var retired: [UnsafeMutablePointer<Entry>] = []
        var nextID = 1
        var version: UInt64 = 0
    }

    /// What the publishing thread works with, under `publishLock`.
    @usableFromInline
    struct Publisher {
        @usableFromInline var snapshot: ContiguousArray<UnsafeMutablePointer<Entry>> = []
        @usableFromInline var snapshotVersion: UInt64 = 0
        /// Events published from inside a handler, delivered after the current one.
        @usableFromInline var pending: [Event] = []
        @usableFromInline var pendingHead = 0

        init() {}
    }

    // The publish path is @inlinable so that each client compiles it specialised for
    // its `Event` type: generic code across the module boundary costs a metadata
    // lookup and a value-witness copy per subscriber per event.
    @usableFromInline let publishLock = Lock()
    /// The thread that holds `publishLock`, or 0. Only the holder ever reads its own
    /// identity back, so a relaxed load can only see its own store or another's.
    @usableFromInline let holder = Atomic<UInt>(0)
    @usableFromInline let publisher: UnsafeMutablePointer<Publisher>
    /// `Registry.version`, readable without the registry lock.
    @usableFromInline let registryVersion = Atomic<UInt64>(0)
    /// The id of the synchronous subscriber a publisher is about to call or is
    /// calling, or 0. Together with `Entry.cancelled` it lets `cancel` wait for its
    /// own subscriber's delivery only (see `cancel(id:)`).
    @usableFromInline let current = Atomic<Int>(0)
    /// How many `cancel` calls wait for `current` to move on.
    @usableFromInline let cancelWaiters = Atomic<Int>(0)
    /// Where a waiting `cancel` sleeps; a publisher wakes it when `cancelWaiters > 0`.
    @usableFromInline let moved = LockedCondition(())
    private let registryLock = Lock()
    private let registry: UnsafeMutablePointer<Registry>
    @usableFromInline let errorSink: @Sendable (SubscriberFailure) -> Void
    private let busy = DispatchGroup()

    /// Creates a bus. `errorSink` is called, on the delivering thread, with every
    /// error a handler throws. It must not block.
    public init(errorSink: @escaping @Sendable (SubscriberFailure) -> Void = { _ in }) {
        self.errorSink = errorSink
        registry = .allocate(capacity: 1)
        registry.initialize(to: Registry())
        publisher = .allocate(capacity: 1)
        publisher.initialize(to: Publisher())
    }

    deinit {
        for entry in registry.pointee.entries { Self.free(entry) }
        for entry in registry.pointee.retired { Self.free(entry) }
        registry.deinitialize(count: 1)
        registry.deallocate()
        publisher.deinitialize(count: 1)
        publisher.deallocate()
    }

    /// Adds a subscriber. Never waits for a handler.
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
        let id = registryLock.withLock { () -> Int in
            let id = registry.pointee.nextID
            registry.pointee.nextID += 1
            let entry = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
            entry.initialize(
                to: Entry(
                    id: id, name: name, delivery: delivery, filter: filter, handler: handler, mailbox: mailbox))
            registry.pointee.entries.append(entry)
            bumpVersion()
            return id
        }
        return Subscription(
            name: name,
            onCancel: { [weak self] in self?.cancel(id: id) },
            readStatistics: { [weak self] in self?.statistics(id: id) })
    }

    /// Caller holds `registryLock`.
    private func bumpVersion() {
        registry.pointee.version &+= 1
        registryVersion.store(registry.pointee.version, ordering: .releasing)
    }

    /// Stops delivery to subscriber `id`: once this returns, no delivery to it starts.
    ///
    /// The subscriber is marked cancelled (a sequentially consistent store), then
    /// `current` is read (also sequentially consistent). A publisher announces each
    /// synchronous delivery by storing the subscriber's id in `current` first and
    /// reading the mark second. So either the publisher sees the mark and skips the
    /// subscriber, or this call sees the id in `current` and waits until the
    /// publisher moves past it: that delivery, and no other subscriber's handler.
    private func cancel(id: Int) {
        let mailbox = registryLock.withLock { () -> Mailbox<Event>?? in
            guard let index = registry.pointee.entries.firstIndex(where: { $0.pointee.id == id }) else {
                return nil
            }
            let entry = registry.pointee.entries.remove(at: index)
            entry.pointee.cancelled.store(true, ordering: .sequentiallyConsistent)
            registry.pointee.retired.append(entry)
            bumpVersion()
            return .some(entry.pointee.mailbox)
        }
        guard let mailbox else { return }  // already cancelled
        if let mailbox {
            mailbox.cancel()
            return
        }
        // On the publishing thread the only handler running is the caller's own
        // (or one of another subscriber): waiting would wait for ourselves.
        if holder.load(ordering: .relaxed) == currentThreadIdentity() { return }
        if current.load(ordering: .sequentiallyConsistent) != id { return }
        // Counted under `moved`'s lock, which wakes its waiters: one can wait for a
        // cancel to be waiting (a test that the cancel does not return early).
        moved.change { _ in _ = cancelWaiters.add(1, ordering: .sequentiallyConsistent) }
        _ = moved.wait(until: nil) { _ in current.load(ordering: .sequentiallyConsistent) != id }
        cancelWaiters.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// Delivers `event` to every subscriber whose filter accepts it: synchronous
    /// handlers run before this returns; queued subscribers get it in their mailbox.
    /// Called from inside a handler, it only schedules the event (see the type's
    /// documentation) and returns.
    @inlinable
    public func publish(_ event: Event) {
        let me = currentThreadIdentity()
        if holder.load(ordering: .relaxed) == me {
            publisher.pointee.pending.append(event)
            return
        }
        publishLock.lock()
        holder.store(me, ordering: .relaxed)
        deliver(event)
        finishDelivery()
        holder.store(0, ordering: .relaxed)
        publishLock.unlock()
    }

    /// Publishes each event in order, taking the lock once.
    @inlinable
    public func publish<S: Sequence>(contentsOf events: S) where S.Element == Event {
        let me = currentThreadIdentity()
        if holder.load(ordering: .relaxed) == me {
            publisher.pointee.pending.append(contentsOf: events)
            return
        }
        publishLock.lock()
        holder.store(me, ordering: .relaxed)
        for event in events { deliver(event) }
        finishDelivery()
        holder.store(0, ordering: .relaxed)
        publishLock.unlock()
    }

    /// Caller holds the publish lock. Delivers to the subscribers present when the
    /// event's delivery starts; ones added meanwhile wait for the next event.
    @inlinable @inline(__always)
    func deliver(_ event: Event) {
        if registryVersion.load(ordering: .acquiring) != publisher.pointee.snapshotVersion {
            refreshSnapshot()
        }
        let count = publisher.pointee.snapshot.count
        var index = 0
        while index < count {
            let entry = publisher.pointee.snapshot[index]
            index += 1
            if entry.pointee.cancelled.load(ordering: .relaxed) { continue }
            if entry.pointee.hasFilter,
                !entry.pointee.accepts(event)
            {
                continue
            }
            if let mailbox = entry.pointee.mailbox {
                mailbox.enqueue(event)
                continue
            }
            // Announce, then check the mark: see `cancel(id:)`.
            current.store(entry.pointee.id, ordering: .sequentiallyConsistent)
            if cancelWaiters.load(ordering: .sequentiallyConsistent) > 0 { wakeCancellers() }
            if entry.pointee.cancelled.load(ordering: .sequentiallyConsistent) { continue }
            do {
                try entry.pointee.handle(event)
                entry.pointee.delivered.store(
                    entry.pointee.delivered.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
            } catch {
                entry.pointee.failed.store(entry.pointee.failed.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
                errorSink(SubscriberFailure(subscriber: entry.pointee.name, error: error))
            }
        }
    }

    /// Caller holds the publish lock. Delivers events published from handlers, then
    /// tells any waiting `cancel` that no delivery is running.
    @inlinable
    func finishDelivery() {
        while publisher.pointee.pendingHead < publisher.pointee.pending.count {
            let event = publisher.pointee.pending[publisher.pointee.pendingHead]
            publisher.pointee.pendingHead += 1
            deliver(event)
        }
        if publisher.pointee.pendingHead > 0 {
            publisher.pointee.pending.removeAll(keepingCapacity: true)
            publisher.pointee.pendingHead = 0
        }
        current.store(0, ordering: .sequentiallyConsistent)
        if cancelWaiters.load(ordering: .sequentiallyConsistent) > 0 { wakeCancellers() }
    }

    /// Caller holds the publish lock. Takes the registry's list, and frees the
    /// cancelled entries that only the old snapshot could still point at.
    @usableFromInline
    func refreshSnapshot() {
        let retired = registryLock.withLock { () -> [UnsafeMutablePointer<Entry>] in
            publisher.pointee.snapshot = registry.pointee.entries
            publisher.pointee.snapshotVersion = registry.pointee.version
            defer { registry.pointee.retired.removeAll() }
            return registry.pointee.retired
        }
        for entry in retired { Self.free(entry) }
    }

    @usableFromInline
    func wakeCancellers() {
        moved.change { _ in }
    }

    static func free(_ entry: UnsafeMutablePointer<Entry>) {
        entry.deinitialize(count: 1)
        entry.deallocate()
    }

    /// The counters of every live subscriber, in subscription order. Never waits
    /// for a handler.
    public func statistics() -> [SubscriberStatistics] {
        registryLock.withLock {
            registry.pointee.entries.map { $0.pointee.statistics() }
        }
    }

    private func statistics(id: Int) -> SubscriberStatistics? {
        registryLock.withLock {
            registry.pointee.entries.first { $0.pointee.id == id }?.pointee.statistics()
        }
    }

    /// Waits until every queued mailbox is empty and idle.
    ///
    /// - Returns: `true` once they all are; `false` if `timeout` passed first (a
    ///   handler is stuck, or events keep arriving). Must not be called from a
    ///   queued handler of this bus.
    public func drain(timeout: Duration) -> Bool {
        busy.wait(timeout: TimeSpan(timeout).deadline(after: .now())) == .success
    }
}
