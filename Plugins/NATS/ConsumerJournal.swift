import FleetConfiguration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore
import Locking

/// A JetStream durable consumer seen as an `EventJournal`, so a durable plugin (the
/// webhook, the command subscriber) runs unchanged on the fleet's stream: `juice fleet
/// deliver`.
///
/// - Events are the stream's messages, each with the stream sequence as its
///   `sequence` (monotonic across machines), its own id, source and time.
/// - Moving the cursor past a sequence acknowledges every message up to it (explicit
///   ack, confirmed by the server): after that it is never sent again. Until then it
///   is held; held messages are marked "in progress" so their ack wait does not run
///   out while a retry waits. A process that dies holds nothing: the server sends
///   its unacknowledged messages again after the ack wait (at least once).
/// - Retry state and dead letters are kept in `bookkeeping` (the local store's
///   delivery tables) under `Fleet.bookkeepingName(subscriber)`, so a retry schedule
///   holds across processes and a dead letter (acknowledged on the stream, never sent
///   again) stays on record; their `sequence` is the stream's. Without `bookkeeping`
///   they live in this process. The lease lives in this process.
public final class ConsumerJournal: EventJournal {
    private struct Held {
        let envelope: EventEnvelope
        var message: NATSMessage
    }

    private struct State {
        var held: [Int64: Held] = [:]
        var acknowledged: Int64 = 0
        var cursors: [String: Int64] = [:]
        var deadLetters: [DeadLetter] = []
        var retryStates: [String: DeliveryRetryState] = [:]
        var leased: Set<String> = []
        var stopped = false
        var feeding = false
        var lastProgress = ContinuousClock.now
    }

    private let subscription: NATSSubscription
    private let state = LockedCondition(State())
    private let report: @Sendable (String) -> Void
    /// Where retry state and dead letters are kept across processes, if anywhere.
    private let bookkeeping: (any EventJournal)?
    /// Messages fetched at once (and the consumer's most unacknowledged).
    public let batch: Int

    /// - Parameter report: hears one line per message that is not an event (it is refused for good).
    /// - Parameter bookkeeping: the local store, for retry state and dead letters.
    public init(
        subscription: NATSSubscription, batch: Int, bookkeeping: (any EventJournal)? = nil,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.subscription = subscription
        self.batch = batch
        self.bookkeeping = bookkeeping
        self.report = report
    }

    // MARK: Feeding

    /// Fetches what the consumer has now, until a fetch comes back empty or a batch is
    /// held (`juice fleet deliver`); returns how many came.
    @discardableResult
    public func fetchAvailable(timeout: Double) throws(NATSError) -> Int {
        var total = 0
        while state.withLock({ $0.held.count < batch }) {
            let count = try fetchOnce(timeout: timeout)
            guard count > 0 else { break }
            total += count
        }
        return total
    }

    /// Keeps fetching on a thread of its own until `stop()` (`juice fleet deliver --follow`);
    /// a failed fetch (the server away) is retried after a second.
    public func startFeeding() {
        let begins = state.change { state -> Bool in
            defer { state.feeding = true }
            return !state.feeding
        }
        guard begins else { return }
        startDetachedThread(named: "juice.fleet.feed") { [self] in
            while !state.withLock({ $0.stopped }) {
                do {
                    _ = try fetchOnce(timeout: 1)
                } catch {
                    // The server is away: try again in a second, or at once on `stop()`.
                    _ = state.wait(until: .now + .seconds(1)) { $0.stopped }
                }
            }
        }
    }

    /// Stops feeding and ends the subscription (held messages go back to the server after the ack wait).
    public func stop() {
        state.change { $0.stopped = true }
        subscription.stop()
    }

    /// Fetches at most one batch, keeps the events, marks held ones in progress; returns how many came.
    @discardableResult
    private func fetchOnce(timeout: Double) throws(NATSError) -> Int {
        // Room for a batch only once what is held has been worked off a little.
        let room = state.withLock { batch - $0.held.count }
        guard room > 0 else {
            keepHeldAlive()
            _ = state.wait(until: .now + .seconds(1)) { $0.held.count < batch || $0.stopped }
            return 0
        }
        let messages = try subscription.fetch(batch: room, timeout: timeout)
        var refused: [NATSMessage] = []
        var alreadyDone: [NATSMessage] = []
        state.change { state in
            for message in messages {
                guard let sequence = message.metadata.map({ Int64($0.streamSequence) }),
                    let decoded = try? CloudEventFormat.decode(message.text)
                else {
                    refused.append(message)
                    continue
                }
                if sequence <= state.acknowledged {
                    alreadyDone.append(message)
                } else if state.held[sequence] != nil {
                    state.held[sequence]?.message = message  // sent again: ack this delivery
                } else {
                    let envelope = EventEnvelope(
                        sequence: sequence, id: decoded.id, time: decoded.time, source: decoded.source,
                        changeID: decoded.changeID, event: decoded.event)
                    state.held[sequence] = Held(envelope: envelope, message: message)
                }
            }
        }
        for message in refused {
            report("\(message.subject): not a JuiceMaker CloudEvent; refused (never sent again)")
            message.terminate()
        }
        for message in alreadyDone { try? message.acknowledge() }
        keepHeldAlive()
        return messages.count
    }

    /// Marks held messages in progress at most every second.
    private func keepHeldAlive() {
        let held = state.withLock { state -> [NATSMessage] in
            guard ContinuousClock.now - state.lastProgress > .seconds(1) else { return [] }
            state.lastProgress = .now
            return state.held.values.map(\.message)
        }
        for message in held { message.inProgress() }
    }

    // MARK: EventJournal

    public func lastSequence() throws(StoreError) -> Int64 {
        state.withLock { max($0.acknowledged, $0.held.keys.max() ?? 0) }
    }

    public func events(after sequence: Int64, limit: Int) throws(StoreError) -> [EventEnvelope] {
        state.withLock { state in
            Array(state.held.filter { $0.key > sequence }.sorted { $0.key < $1.key }.prefix(max(0, limit)).map(\.value.envelope))
        }
    }

    public func waitForEvents(after sequence: Int64, timeout: Duration) throws(StoreError) -> Bool {
        state.wait(until: .now + timeout) { state in state.held.keys.contains { $0 > sequence } }
    }

    public func cursor(named name: String) throws(StoreError) -> Int64 {
        state.withLock { $0.cursors[name] ?? $0.acknowledged }
    }

    /// Acknowledges every held message up to `sequence`, in order, each confirmed by the server.
    public func setCursor(named name: String, to sequence: Int64) throws(StoreError) {
        let done = state.change { state -> [NATSMessage] in
            state.cursors[name] = max(state.cursors[name] ?? 0, sequence)
            let keys = state.held.keys.filter { $0 <= sequence }.sorted()
            defer {
                for key in keys { state.held[key] = nil }
                state.acknowledged = max(state.acknowledged, sequence)
            }
            return keys.compactMap { state.held[$0]?.message }
        }
        for message in done {
            do throws(NATSError) {
                try message.acknowledge()
            } catch {
                // Not confirmed: the server sends it again after the ack wait (at least once).
                report("\(error.message); the event may be delivered again")
            }
        }
    }

    public func cursors() throws(StoreError) -> [String: Int64] { state.withLock { $0.cursors } }

    public func recordDeadLetter(_ letter: DeadLetter) throws(StoreError) {
        if let bookkeeping {
            try bookkeeping.recordDeadLetter(
                DeadLetter(
                    subscriber: Fleet.bookkeepingName(letter.subscriber), sequence: letter.sequence, eventID: letter.eventID,
                    attempts: letter.attempts, lastError: letter.lastError, recordedAt: letter.recordedAt))
            return
        }
        state.change { $0.deadLetters.append(letter) }
    }

    public func deadLetters(for subscriber: String?) throws(StoreError) -> [DeadLetter] {
        if let bookkeeping {
            let kept = try bookkeeping.deadLetters(for: subscriber.map(Fleet.bookkeepingName))
            return kept.compactMap { letter in
                guard let name = Fleet.subscriber(fromBookkeepingName: letter.subscriber) else { return nil }
                return DeadLetter(
                    subscriber: name, sequence: letter.sequence, eventID: letter.eventID, attempts: letter.attempts,
                    lastError: letter.lastError, recordedAt: letter.recordedAt)
            }
        }
        return state.withLock { state in state.deadLetters.filter { subscriber == nil || $0.subscriber == subscriber } }
    }

    public func removeDeadLetters(for subscriber: String, sequences: [Int64]) throws(StoreError) {
        if let bookkeeping {
            try bookkeeping.removeDeadLetters(for: Fleet.bookkeepingName(subscriber), sequences: sequences)
            return
        }
        let doomed = Set(sequences)
        state.change { state in state.deadLetters.removeAll { $0.subscriber == subscriber && doomed.contains($0.sequence) } }
    }

    public func retryState(for subscriber: String) throws(StoreError) -> DeliveryRetryState? {
        if let bookkeeping { return try bookkeeping.retryState(for: Fleet.bookkeepingName(subscriber)) }
        return state.withLock { $0.retryStates[subscriber] }
    }

    public func setRetryState(_ retryState: DeliveryRetryState?, for subscriber: String) throws(StoreError) {
        if let bookkeeping {
            try bookkeeping.setRetryState(retryState, for: Fleet.bookkeepingName(subscriber))
            return
        }
        state.change { $0.retryStates[subscriber] = retryState }
    }

    public func takeDeliveryLease(for subscriber: String) throws(StoreError) -> DeliveryLease? {
        guard state.change({ $0.leased.insert(subscriber).inserted }) else { return nil }
        let state = state
        return DeliveryLease { state.change { _ = $0.leased.remove(subscriber) } }
    }
}
