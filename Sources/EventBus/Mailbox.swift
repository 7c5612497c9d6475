import Dispatch
import Locking
import Synchronization

/// One queued subscriber's bounded FIFO and the serial context that drains it.
///
/// The publisher appends under a short lock and schedules a drain only when the
/// mailbox goes from idle to busy. The drain takes everything waiting in one swap and
/// handles it without the lock, so a busy subscriber costs the publisher one lock and
/// one append per event. Nothing in it spins or sleeps.
@usableFromInline
final class Mailbox<Event: Sendable>: Sendable {
    // The enqueue and drain paths are @inlinable so they compile specialised for the
    // client's `Event` type (see `EventBus.publish`).
    @usableFromInline
    struct State: Sendable {
        /// Waiting events are `buffer[head...]`; `head` moves past dropped-oldest ones.
        @usableFromInline var buffer: [Event] = []
        @usableFromInline var head = 0
        /// Events taken by the drain and not yet finished.
        @usableFromInline var inHand = 0
        @usableFromInline var draining = false
        @usableFromInline var cancelled = false
        @usableFromInline var delivered = 0
        @usableFromInline var failed = 0
        @usableFromInline var dropped = 0

        init() {}

        @inlinable var waitingCount: Int { buffer.count - head }
    }

    @usableFromInline let name: String
    @usableFromInline let capacity: Int
    @usableFromInline let policy: OverflowPolicy
    @usableFromInline let handler: @Sendable (Event) throws -> Void
    @usableFromInline let errorSink: @Sendable (SubscriberFailure) -> Void
    @usableFromInline let busy: DispatchGroup
    @usableFromInline let queue: DispatchQueue
    @usableFromInline let state = Locked(State())
    @usableFromInline let cancelled = Atomic<Bool>(false)

    init(
        name: String,
        capacity: Int,
        policy: OverflowPolicy,
        busy: DispatchGroup,
        errorSink: @escaping @Sendable (SubscriberFailure) -> Void,
        handler: @escaping @Sendable (Event) throws -> Void
    ) {
        self.name = name
        self.capacity = max(1, capacity)
        self.policy = policy
        self.busy = busy
        self.errorSink = errorSink
        self.handler = handler
        self.queue = DispatchQueue(label: "EventBus.mailbox.\(name)")
    }

    /// Accepts `event` or counts it as dropped. Never waits for the handler.
    @inlinable
    func enqueue(_ event: Event) {
        let mustSchedule = state.withLock { state -> Bool in
            if state.cancelled { return false }
            if state.waitingCount + state.inHand >= capacity {
                state.dropped += 1
                guard policy == .dropOldest, state.waitingCount > 0 else { return false }
                state.head += 1
            }
            state.buffer.append(event)
            if state.draining { return false }
            state.draining = true
            return true
        }
        if mustSchedule {
            busy.enter()
            queue.async { self.drain() }
        }
    }

    /// Handles what is waiting, batch by batch, until the mailbox is empty.
    ///
    /// A drain that keeps up with a busy publisher takes one or two events per lock,
    /// and the lock's cache line then moves between the two cores on every event. So
    /// after a small batch, when more is already waiting, the drain gives its thread
    /// back and comes again a moment later (`gatherDelay`): the events gather into one
    /// batch meanwhile, and the publisher's side stays cheap. No thread spins or
    /// sleeps while it waits; a sparse stream (the mailbox found empty) is handled at
    /// once, as before.
    @inlinable
    func drain() {
        var batch: [Event] = []
        var delivered = 0
        var failed = 0
        var small = false
        while true {
            let start = state.withLock { state -> Int? in
                state.inHand = 0
                state.delivered += delivered
                state.failed += failed
                delivered = 0
                failed = 0
                if state.cancelled || state.waitingCount == 0 {
                    state.buffer.removeAll(keepingCapacity: true)
                    state.head = 0
                    state.draining = false
                    return nil
                }
                if small { return -1 }
                swap(&state.buffer, &batch)
                let start = state.head
                state.head = 0
                state.inHand = batch.count - start
                return start
            }
            guard let start else {
                busy.leave()
                return
            }
            if start < 0 {
                // Still `draining`, still counted in `busy`: the publisher does not
                // schedule another drain meanwhile.
                queue.asyncAfter(deadline: .now() + Self.gatherDelay) { self.drain() }
                return
            }
            small = batch.count - start < Self.smallBatch
            for index in start..<batch.count {
                if cancelled.load(ordering: .relaxed) { break }
                do {
                    try handler(batch[index])
                    delivered += 1
                } catch {
                    failed += 1
                    errorSink(SubscriberFailure(subscriber: name, error: error))
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Batches smaller than this make the drain wait `gatherDelay` before the next.
    @usableFromInline static var smallBatch: Int { 64 }
    /// How long a drain that just handled a small batch lets the next one gather.
    @usableFromInline static var gatherDelay: DispatchTimeInterval { .milliseconds(1) }

    /// Discards what is waiting; the drain stops after the event in hand.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        state.withLock { state in
            state.cancelled = true
            state.buffer.removeAll()
            state.head = 0
        }
    }

    func statistics(delivery: Delivery) -> SubscriberStatistics {
        state.withLock { state in
            SubscriberStatistics(
                name: name, delivery: delivery,
                delivered: state.delivered, failed: state.failed,
                dropped: state.dropped, queued: state.waitingCount + state.inHand
            )
        }
    }
}
