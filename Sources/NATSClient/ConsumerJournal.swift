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
import JuiceMakerPluginKit
import Locking

/// A JetStream durable consumer seen as an `EventJournal`, so a durable plugin (the
/// webhook, the command subscriber) runs unchanged on the fleet's stream: `juice fleet
/// deliver`.
///
/// - Events are the stream's messages, each with the stream sequence as its
///   `sequence` (monotonic across machines), its own id, source and time.
/// - Each message is acknowledged on its own once its event is delivered or given up
///   on (`acknowledge`, explicit ack confirmed by the server: a windowed runner does
///   this as each answer comes), and moving the cursor past a sequence acknowledges
///   every message up to it: after that it is never sent again. Until then it
///   is held, and every held message is marked "in progress" each third of the
///   consumer's ack wait, on a thread of its own, so its ack wait does not run out
///   while a delivery runs or a retry waits. A process that dies holds nothing: the
///   server sends its unacknowledged messages again after the ack wait (at least once).
/// - A message that is not a machine's event (`FleetEvent`: not a JuiceMaker
///   CloudEvent, a subject that does not match it, impossible values) is refused for
///   good (terminated on the stream), said in one line (stream sequence, subject,
///   reason) and recorded as a dead letter with them.
/// - Retry state and dead letters are kept in `bookkeeping` (the local store's
///   delivery tables) under `Fleet.bookkeepingName(subscriber)`, so a retry schedule
///   holds across processes and a dead letter (acknowledged on the stream, never sent
///   again) stays on record; their `sequence` is the stream's. Without `bookkeeping`
///   they live in this process. The lease lives in this process.
/// - A dead letter's event is read back from the stream by its sequence when its
///   redelivery asks for it (`juice subscribers retry <name> --dead-letters`).
public final class ConsumerJournal: EventAcknowledgingJournal {
    private struct Held {
        let envelope: EventEnvelope
        var message: NATSMessage
    }

    private struct State {
        var held: [Int64: Held] = [:]
        var acknowledged: Int64 = 0
        /// Acknowledged on their own, above `acknowledged`: a copy sent again is not held.
        var acknowledgedAhead: Set<Int64> = []
        var cursors: [String: Int64] = [:]
        var deadLetters: [DeadLetter] = []
        var retryStates: [String: DeliveryRetryState] = [:]
        var leased: Set<String> = []
        var stopped = false
        var feeding = false
        /// Dead letters whose redelivery may ask for them: those `deadLetters(for:)`
        /// listed last, until each is read once.
        var armed: Set<Int64> = []
    }

    private let consumer: DurableConsumer
    /// The subscriber this journal feeds.
    private let subscriber: String
    private let state = LockedCondition(State())
    private let report: @Sendable (String) -> Void
    /// Where retry state and dead letters are kept across processes, if anywhere.
    private let bookkeeping: (any EventJournal)?
    /// Messages fetched at once (and the consumer's most unacknowledged).
    public let batch: Int

    /// - Parameter report: hears one line per message that is not an event (it is refused for good).
    /// - Parameter bookkeeping: the local store, for retry state and dead letters.
    public init(
        consumer: DurableConsumer, subscriber: String, batch: Int, bookkeeping: (any EventJournal)? = nil,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.consumer = consumer
        self.subscriber = subscriber
        self.batch = batch
        self.bookkeeping = bookkeeping
        self.report = report
        startKeepingHeldAlive()
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

    /// Stops feeding and lets go of the consumer, which stays on the server (held
    /// messages go back to it after the ack wait).
    public func stop() {
        state.change { $0.stopped = true }
        consumer.stop()
    }

    /// Marks every held message in progress each third of the ack wait, until `stop()`.
    private func startKeepingHeldAlive() {
        let interval = Duration.milliseconds(max(200, Int(consumer.ackWait * 1000 / 3)))
        startDetachedThread(named: "juice.fleet.progress") { [self] in
            while true {
                let stopped = state.wait(until: .now + interval) { $0.stopped }
                if stopped { return }
                let held = state.withLock { $0.held.values.map(\.message) }
                for message in held { message.inProgress() }
            }
        }
    }

    /// Fetches at most one batch, keeps the events; returns how many came.
    @discardableResult
    private func fetchOnce(timeout: Double) throws(NATSError) -> Int {
        // Room for a batch only once what is held has been worked off a little.
        let room = state.withLock { batch - $0.held.count }
        guard room > 0 else {
            _ = state.wait(until: .now + .seconds(1)) { $0.held.count < batch || $0.stopped }
            return 0
        }
        let messages = try consumer.fetch(batch: room, timeout: timeout)
        var refused: [(message: NATSMessage, sequence: Int64, reason: String)] = []
        var alreadyDone: [NATSMessage] = []
        state.change { state in
            for message in messages {
                let sequence = message.metadata.map { Int64($0.streamSequence) } ?? 0
                let decoded: EventEnvelope
                switch FleetEvent.check(text: message.text, subject: message.subject, prefix: consumer.settings.prefix) {
                case .success(let (_, envelope)): decoded = envelope
                case .failure(let reason):
                    refused.append((message, sequence, reason.description))
                    continue
                }
                if sequence <= state.acknowledged || state.acknowledgedAhead.contains(sequence) {
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
        for (message, sequence, reason) in refused { refuse(message, sequence: sequence, reason: reason) }
        for message in alreadyDone { try? message.acknowledge() }
        return messages.count
    }

    /// Refuses a message that is not an event: terminated on the stream (never sent
    /// again), said in one line, kept as a dead letter with its sequence, subject and reason.
    private func refuse(_ message: NATSMessage, sequence: Int64, reason: String) {
        let subject = Self.excerpt(message.subject)
        let why = Self.excerpt(reason)
        report("stream sequence \(sequence), subject \(subject): \(why); refused (never sent again), kept as a dead letter")
        message.terminate()
        guard sequence > 0 else { return }
        let id = message.header("Nats-Msg-Id").flatMap(EventID.init) ?? EventID(high: 0, low: 0)
        try? recordDeadLetter(
            DeadLetter(
                subscriber: subscriber, sequence: sequence, eventID: id, attempts: 0, lastError: "subject \(subject): \(why)",
                recordedAt: Date().timeIntervalSince1970))
    }

    /// `text` cut to 200 characters: a subject or reason from another machine may be long.
    static func excerpt(_ text: String) -> String {
        text.count <= 200 ? text : String(text.prefix(200)) + "…"
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

    /// The held events after `sequence`; when `sequence + 1` is a dead letter that
    /// `deadLetters(for:)` listed and that was not read since (what a dead letter's
    /// redelivery asks for next), that message read back from the stream first, or why
    /// it cannot be read.
    public func entries(after sequence: Int64, limit: Int) throws(StoreError) -> [JournalEntry] {
        let (held, isLetter) = state.change { state in
            (
                Array(state.held.filter { $0.key > sequence }.sorted { $0.key < $1.key }.prefix(max(0, limit)).map(\.value.envelope)),
                state.armed.remove(sequence + 1) != nil && state.held[sequence + 1] == nil
            )
        }
        guard isLetter, limit > 0 else { return held.map(JournalEntry.event) }
        return [letter(at: sequence + 1)] + held.prefix(limit - 1).map(JournalEntry.event)
    }

    /// The stream's message at `sequence` as an event, or why it is not one.
    private func letter(at sequence: Int64) -> JournalEntry {
        let message: NATSMessage?
        do {
            message = try consumer.connection.message(at: UInt64(sequence), of: consumer.stream)
        } catch {
            return .unreadable(UnreadableEvent(sequence: sequence, eventID: nil, reason: error.message))
        }
        guard let message else {
            return .unreadable(UnreadableEvent(sequence: sequence, eventID: nil, reason: "the stream no longer holds it (deleted or aged out)"))
        }
        do {
            let (_, decoded) = try FleetEvent.check(text: message.text, subject: message.subject, prefix: consumer.settings.prefix).get()
            return .event(
                EventEnvelope(
                    sequence: sequence, id: decoded.id, time: decoded.time, source: decoded.source, changeID: decoded.changeID,
                    event: decoded.event))
        } catch {
            return .unreadable(
                UnreadableEvent(sequence: sequence, eventID: nil, reason: "subject \(Self.excerpt(message.subject)): \(error.description)"))
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
                state.acknowledgedAhead = state.acknowledgedAhead.filter { $0 > sequence }
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

    /// Acknowledges the message of `sequence` alone (confirmed by the server), before
    /// the cursor reaches it: it is no longer held, and not sent again.
    public func acknowledge(_ sequence: Int64, for subscriber: String) {
        let message = state.change { state -> NATSMessage? in
            guard sequence > state.acknowledged else { return nil }
            state.acknowledgedAhead.insert(sequence)
            return state.held.removeValue(forKey: sequence)?.message
        }
        do throws(NATSError) {
            try message?.acknowledge()
        } catch {
            // Not confirmed: the server sends it again after the ack wait (at least once).
            report("\(error.message); the event may be delivered again")
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
        let letters: [DeadLetter]
        if let bookkeeping {
            let kept = try bookkeeping.deadLetters(for: subscriber.map(Fleet.bookkeepingName))
            letters = kept.compactMap { letter in
                guard let name = Fleet.subscriber(fromBookkeepingName: letter.subscriber) else { return nil }
                return DeadLetter(
                    subscriber: name, sequence: letter.sequence, eventID: letter.eventID, attempts: letter.attempts,
                    lastError: letter.lastError, recordedAt: letter.recordedAt)
            }
        } else {
            letters = state.withLock { state in state.deadLetters.filter { subscriber == nil || $0.subscriber == subscriber } }
        }
        let mine = letters.filter { $0.subscriber == self.subscriber }.map(\.sequence)
        state.change { $0.armed = Set(mine) }
        return letters
    }

    public func removeDeadLetters(for subscriber: String, sequences: [Int64]) throws(StoreError) {
        state.change { $0.armed.subtract(sequences) }
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
