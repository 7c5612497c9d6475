import EventBus
import Locking

extension JuiceMaker {
    /// This maker's committed events as an `AsyncSequence`, for Swift concurrency:
    ///
    /// ```swift
    /// let events = try maker.events(kinds: [.juiceMade], capacity: 256)
    /// for await envelope in events {
    ///     print(envelope.sequence, envelope.event)
    /// }
    /// // events.dropped: how many the full buffer discarded
    /// ```
    ///
    /// The subscription starts when this returns, so no event published after it is
    /// missed, even before iteration begins. Events arrive in journal order (the bus's
    /// publish order), each once. The publisher never waits for the consumer: they wait
    /// in a buffer of `capacity` events; when it is full, `whenFull` discards the oldest
    /// waiting event or the new one, and `Events.dropped` counts every discarded event.
    ///
    /// The sequence ends:
    /// - when the consuming task is cancelled: a `next()` waiting for an event returns
    ///   `nil` at once (one called later, at its start), waiting events are discarded
    ///   and the subscription is cancelled (`Task.cancel()` then waits for a publish
    ///   running on another thread to finish, as `Subscription.cancel()` does);
    /// - when `cancel()` is called, or the last copy of the sequence and its iterator is
    ///   released (a `for await` over `try maker.events()` that `break`s): likewise;
    /// - when this maker's bus is gone: after the events already waiting.
    ///
    /// - Parameters:
    ///   - name: the subscriber's name on the bus (statistics, errors).
    ///   - kinds: only these kinds of event; `nil` for all.
    ///   - capacity: events that may wait for the consumer (at least 1).
    ///   - whenFull: which event a full buffer discards.
    public func events(
        _ name: String = "events",
        kinds: Set<EventKind>? = nil,
        capacity: Int = 1024,
        whenFull: OverflowPolicy = .dropOldest
    ) throws(JuiceMakerError) -> Events {
        let buffer = EventsBuffer(capacity: capacity, policy: whenFull)
        let feed = BufferHandle(buffer) { $0.finish() }
        // Synchronous delivery: the handler only appends under the buffer's lock (never
        // waiting for the consumer), and the buffer is the one place events can drop.
        let subscription = try subscribe(name, delivery: .synchronous, kinds: kinds) { envelope in
            feed.buffer.append(envelope)
        }
        buffer.attach(subscription)
        return Events(owner: BufferHandle(buffer) { $0.cancel() })
    }

    /// The `AsyncSequence` `events(_:kinds:capacity:whenFull:)` returns.
    ///
    /// One consumer: iterating it from several tasks at once splits the events between
    /// them. Copies share one buffer and one subscription.
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = EventEnvelope
        public typealias Failure = Never

        private let owner: BufferHandle

        fileprivate init(owner: BufferHandle) {
            self.owner = owner
        }

        /// Events the full buffer has discarded so far (readable from any task, at any
        /// time). With `dropOldest` they are the oldest waiting ones; with `dropNewest`,
        /// the ones that arrived while the buffer was full. Events the consumer received
        /// plus `dropped` equals the events published to this subscription.
        public var dropped: Int { owner.buffer.dropped }

        /// Events waiting for the consumer now.
        public var waiting: Int { owner.buffer.waiting }

        /// Ends the sequence now: waiting events are discarded, the subscription is
        /// cancelled, and `next()` returns `nil`. Safe from any task, more than once.
        public func cancel() {
            owner.buffer.cancel()
        }

        public func makeAsyncIterator() -> Iterator {
            Iterator(owner: owner)
        }

        public struct Iterator: AsyncIteratorProtocol {
            public typealias Element = EventEnvelope
            public typealias Failure = Never

            private let owner: BufferHandle

            fileprivate init(owner: BufferHandle) {
                self.owner = owner
            }

            /// The next event, waiting for it if none is waiting; `nil` once the
            /// sequence has ended (see `JuiceMaker.events`).
            public mutating func next() async -> EventEnvelope? {
                await next(isolation: nil)
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async -> EventEnvelope? {
                let buffer = owner.buffer
                if Task.isCancelled {
                    buffer.cancel()
                    return nil
                }
                if let ready = buffer.takeIfReady() { return ready.envelope }
                return await withTaskCancellationHandler {
                    await withCheckedContinuation(isolation: actor) { continuation in
                        buffer.wait(continuation)
                    }
                } onCancel: {
                    buffer.cancel()
                }
            }
        }
    }
}

/// Holds the buffer and does `onRelease` to it when released. Two of them per
/// sequence:
/// - the sequence's and its iterators' (`onRelease` cancels): a sequence nobody can
///   iterate any more does not stay on the bus;
/// - the bus handler's (`onRelease` finishes): the bus releases it when the
///   subscription is removed or the bus itself goes away, and in the second case the
///   sequence ends after the events already waiting.
private final class BufferHandle: Sendable {
    let buffer: EventsBuffer
    private let onRelease: @Sendable (EventsBuffer) -> Void

    init(_ buffer: EventsBuffer, onRelease: @escaping @Sendable (EventsBuffer) -> Void) {
        self.buffer = buffer
        self.onRelease = onRelease
    }

    deinit {
        onRelease(buffer)
    }
}

/// The bounded FIFO between the bus (the handler appends) and the consumer (`next`
/// takes), with the drop count and the consumers waiting for an event.
///
/// Lock order: the bus's lock may be held when this one is taken (the handler runs
/// inside `publish`); this one is never held while calling into the bus or resuming
/// a continuation.
private final class EventsBuffer: Sendable {
    private struct State {
        /// Waiting events are `events[head...]`.
        var events: [EventEnvelope] = []
        var head = 0
        var dropped = 0
        /// Consumers suspended in `next`, in arrival order.
        var waiters: [CheckedContinuation<EventEnvelope?, Never>] = []
        /// Set when the sequence ended by cancellation: nothing more is handed out.
        var cancelled = false
        /// Set when the bus is gone: what is waiting is handed out, then `nil`.
        var finished = false
        /// Cancelled (once) when the sequence ends.
        var subscription: Subscription?

        var waitingCount: Int { events.count - head }

        mutating func takeFirst() -> EventEnvelope? {
            guard head < events.count else { return nil }
            let envelope = events[head]
            head += 1
            if head == events.count {
                events.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= events.count {
                events.removeFirst(head)
                head = 0
            }
            return envelope
        }

        /// The next waiting event, or the end; `nil` when there is neither yet.
        mutating func poll() -> Ready? {
            if cancelled { return Ready(envelope: nil) }
            if let envelope = takeFirst() { return Ready(envelope: envelope) }
            return finished ? Ready(envelope: nil) : nil
        }
    }

    /// An event handed out, or the end (`envelope == nil`).
    struct Ready {
        let envelope: EventEnvelope?
    }

    private let capacity: Int
    private let policy: OverflowPolicy
    private let state = Locked(State())

    init(capacity: Int, policy: OverflowPolicy) {
        self.capacity = max(1, capacity)
        self.policy = policy
    }

    var dropped: Int { state.withLock { $0.dropped } }
    var waiting: Int { state.withLock { $0.waitingCount } }

    /// Called once, right after subscribing; cancels at once if the sequence already ended.
    func attach(_ subscription: Subscription) {
        let ended = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.subscription = subscription
            return false
        }
        if ended { subscription.cancel() }
    }

    /// The handler: hands `envelope` to a waiting consumer, or buffers it, or drops.
    func append(_ envelope: EventEnvelope) {
        let waiter = state.withLock { state -> CheckedContinuation<EventEnvelope?, Never>? in
            if state.cancelled || state.finished { return nil }
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            if state.waitingCount >= capacity {
                state.dropped += 1
                if policy == .dropNewest { return nil }
                _ = state.takeFirst()
            }
            state.events.append(envelope)
            return nil
        }
        waiter?.resume(returning: envelope)
    }

    /// The next waiting event, or the end; `nil` when the consumer must wait.
    func takeIfReady() -> Ready? {
        state.withLock { $0.poll() }
    }

    /// Resumes `continuation` with the next event, now or when one arrives.
    func wait(_ continuation: CheckedContinuation<EventEnvelope?, Never>) {
        let ready = state.withLock { state -> Ready? in
            if let ready = state.poll() { return ready }
            state.waiters.append(continuation)
            return nil
        }
        if let ready { continuation.resume(returning: ready.envelope) }
    }

    /// Ends the sequence now and cancels the subscription.
    func cancel() {
        let (waiters, subscription) = state.withLock { state in
            state.cancelled = true
            state.events.removeAll()
            state.head = 0
            let waiters = state.waiters
            state.waiters.removeAll()
            let subscription = state.subscription
            state.subscription = nil
            return (waiters, subscription)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        subscription?.cancel()
    }

    /// The bus is gone: consumers get what is waiting, then `nil`.
    func finish() {
        let waiters = state.withLock { state in
            state.finished = true
            state.subscription = nil
            // Waiters exist only while nothing is waiting.
            let waiters = state.waiters
            state.waiters.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}
