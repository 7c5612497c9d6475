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
import NATSClient

/// A JetStream durable consumer seen as an `EventJournal`, so a durable plugin (the
/// webhook, the command subscriber) runs unchanged on the fleet's stream: `juice fleet
/// deliver`.
///
/// - Events are the stream's messages, unchanged: their own id, source, time and the
///   machine's own sequence (`publishedSequence`, the body's `sequence`), with the
///   stream's sequence beside it (`streamSequence`, the body's `streamsequence`). Their
///   place in this journal is numbered in
///   the order this process received them: a message's `sequence` is its stream
///   sequence unless that would not come after every number given before it, and
///   then it is the next number. The runner's cursor moves over what it has seen, and
///   the stream does not come in stream order: a message another deliverer held (a
///   process that was killed, or stopped before its answer came) comes back after its
///   ack wait, below messages delivered since. Numbered by arrival, it is still ahead
///   of the cursor and is delivered; numbered by the stream, it would fall behind the
///   cursor and be lost. Dead letters and retry state are kept under the stream sequence.
/// - Each message is acknowledged on its own once its event is delivered or given up
///   on (`acknowledge`, explicit ack confirmed by the server: a windowed runner does
///   this as each answer comes), and moving the cursor past a sequence acknowledges
///   every message up to it: after that it is never sent again. Until then it
///   is held, and every held message is marked "in progress" each third of the
///   consumer's ack wait, on a thread of its own, so its ack wait does not run out
///   while a delivery runs or a retry waits. A process that dies holds nothing: the
///   server sends its unacknowledged messages again after the ack wait (at least once).
/// - A message whose event this process acknowledged lately (by event id: the consumer
///   sent it again, or a stream created anew stores it again) is acknowledged, not
///   delivered again. A message fetched before a new stream was found is never
///   acknowledged (`DurableConsumer.isCurrent`): the acknowledgement of an old stream's
///   message would name the new stream's sequence.
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
package final class ConsumerJournal: EventAcknowledgingJournal {
    let consumer: DurableConsumer
    /// The subscriber this journal feeds.
    let subscriber: String
    let state = LockedCondition(State())
    private let report: @Sendable (String) -> Void
    /// Where retry state and dead letters are kept across processes, if anywhere.
    let bookkeeping: (any DeliveryJournal)?
    /// Messages fetched at once (and the consumer's most unacknowledged).
    package let batch: Int

    /// - Parameter report: hears one line per message that is not an event (it is refused for good).
    /// - Parameter bookkeeping: the local store, for retry state and dead letters.
    package init(
        consumer: DurableConsumer, subscriber: String, batch: Int, bookkeeping: (any DeliveryJournal)? = nil,
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

    /// Fetches what the consumer has now, until a fetch comes back empty, the last
    /// message fetched says none is pending after it (`drained`), or a batch is held
    /// (`juice fleet deliver`); returns how many came.
    /// Holding nothing, it first asks the server: a consumer with no message pending and
    /// none delivered unacknowledged has nothing to fetch, and no fetch is waited out.
    @discardableResult
    package func fetchAvailable(timeout: Double) throws(NATSError) -> Int {
        if state.withLock({ $0.held.isEmpty }), let consumer = try consumer.connection.consumer(consumer.name, of: consumer.stream),
            consumer.pending == 0, consumer.ackPending == 0
        {
            state.change { $0.drained = true }
            return 0
        }
        var total = 0
        while state.withLock({ $0.held.count < batch }) {
            let count = try fetchOnce(timeout: timeout)
            guard count > 0 else { break }
            total += count
            if drained { break }
        }
        return total
    }

    /// Whether the last message fetched said the consumer had no message pending after
    /// it: what was there when it was sent has come (messages another deliverer holds
    /// come back only after their ack wait). A run that delivers what is there stops
    /// here instead of waiting out one more fetch.
    package var drained: Bool { state.withLock { $0.drained } }

    /// Keeps fetching on a thread of its own until `stop()` (`juice fleet deliver --follow`);
    /// a failed fetch (the server away) is retried after a second.
    package func startFeeding() {
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

    /// Stops feeding and lets go of the consumer, which stays on the server. Messages
    /// still held go back to it at once, in their order (negatively acknowledged), so
    /// another deliverer of the consumer, or the next run, has them without waiting out
    /// their ack wait. Call it after the runner's shutdown: a delivery the shutdown had
    /// to cancel at its deadline may have reached the endpoint, and is then delivered
    /// again (at least once).
    package func stop() {
        let held = state.change { state -> [NATSMessage] in
            state.stopped = true
            defer {
                state.held.removeAll()
                state.numberOf.removeAll()
            }
            return state.held.sorted { $0.key < $1.key }.map(\.value.message)
        }
        for message in held where consumer.isCurrent(message) { message.notAcknowledged(delay: 0) }
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
                for message in held where consumer.isCurrent(message) { message.inProgress() }
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
        var handedBack: [NATSMessage] = []
        var refusedAgain: [NATSMessage] = []
        state.change { state in
            if let last = messages.last?.metadata { state.drained = last.pending == 0 }
            for message in messages {
                // The server's number, checked: one past any event's sequence is refused, not converted.
                let streamSequence = message.metadata?.streamSequence ?? 0
                let sequence = FleetEvent.sequence(streamSequence) ?? 0
                let decoded: EventEnvelope
                let checked =
                    sequence == 0 && streamSequence != 0
                    ? .failure(WireFormatError("stream sequence \(streamSequence) is past any event's (\(EventEnvelope.greatestSequence))"))
                    : FleetEvent.check(
                        text: message.text, subject: message.subject, prefix: consumer.settings.prefix, maxBytes: consumer.settings.maxMessageBytes)
                switch checked {
                case .success(let (_, envelope)): decoded = envelope
                case .failure(let reason):
                    let key = RefusedMessage(generation: message.generation, sequence: sequence)
                    if state.refused[key] == nil {
                        state.refused.remember(key, sequence)
                        refused.append((message, sequence, reason.description))
                    } else {
                        refusedAgain.append(message)
                    }
                    continue
                }
                if state.done[decoded.id] != nil {
                    // Acknowledged here: sent again before the acknowledgement arrived, or
                    // stored again in a stream created anew.
                    alreadyDone.append(message)
                } else if let number = state.numberOf[sequence], state.held[number]?.envelope.id == decoded.id {
                    state.held[number]?.message = message  // sent again while held: acknowledge this copy
                } else if state.held.values.contains(where: { $0.envelope.id == decoded.id }) {
                    alreadyDone.append(message)  // held from an older stream: delivered once, as that one
                } else if state.stopped {
                    handedBack.append(message)  // came as `stop()` handed back what was held
                } else {
                    let number = max(sequence, state.lastNumber + 1)
                    state.lastNumber = number
                    if number != sequence { state.offset = true }
                    let envelope = EventEnvelope(
                        sequence: number, id: decoded.id, time: decoded.time, source: decoded.source,
                        changeID: decoded.changeID, event: decoded.event, publishedSequence: decoded.sequence, streamSequence: sequence)
                    state.held[number] = Held(envelope: envelope, streamSequence: sequence, message: message)
                    state.numberOf[sequence] = number
                    state.streamOf.remember(number, sequence)
                }
            }
        }
        for (message, sequence, reason) in refused { refuse(message, sequence: sequence, reason: reason) }
        // Said and kept already: terminated again, nothing more.
        for message in refusedAgain where consumer.isCurrent(message) { message.terminate() }
        for message in alreadyDone where consumer.isCurrent(message) { try? message.acknowledge() }
        for message in handedBack where consumer.isCurrent(message) { message.notAcknowledged(delay: 0) }
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
        try? keep(
            DeadLetter(
                subscriber: subscriber, sequence: sequence, eventID: id, attempts: 0, lastError: "subject \(subject): \(why)",
                recordedAt: Date().timeIntervalSince1970))
    }

    /// `text` cut to 200 characters: a subject or reason from another machine may be long.
    static func excerpt(_ text: String) -> String {
        text.count <= 200 ? text : String(text.prefix(200)) + "…"
    }

    // MARK: EventJournal

    package func lastSequence() throws(StoreError) -> Int64 {
        state.withLock { $0.lastNumber }
    }

    package func events(after sequence: Int64, limit: Int) throws(StoreError) -> [EventEnvelope] {
        state.withLock { state in
            state.heldEvents(after: sequence, limit: limit)
        }
    }

    /// The held events after `sequence`; when `sequence + 1` is a dead letter that
    /// `deadLetters(for:)` listed and that was not read since (what a dead letter's
    /// redelivery asks for next), that message read back from the stream first, or why
    /// it cannot be read.
    package func entries(after sequence: Int64, limit: Int) throws(StoreError) -> [JournalEntry] {
        let (held, letter) = state.change { state -> ([EventEnvelope], (stream: Int64, id: EventID)?) in
            let held = state.heldEvents(after: sequence, limit: limit)
            // A letter held here is read as held; another is read back from the stream.
            guard state.armed.remove(sequence + 1) != nil, let letter = state.letters[sequence + 1],
                state.numberOf[letter.stream] != sequence + 1
            else {
                return (held, nil)
            }
            return (held.filter { $0.sequence != sequence + 1 }, letter)
        }
        guard let letter, limit > 0 else { return held.map(JournalEntry.event) }
        return [self.letter(at: letter.stream, numbered: sequence + 1, id: letter.id)] + held.prefix(limit - 1).map(JournalEntry.event)
    }

    /// The stream's message at `sequence` as an event numbered `number`, or why it is not
    /// one. A message of another event than `id` (a stream created anew numbers its
    /// messages from 1 again) is not the letter's: its own is no longer held.
    private func letter(at sequence: Int64, numbered number: Int64, id: EventID) -> JournalEntry {
        let message: NATSMessage?
        do {
            guard let streamSequence = UInt64(exactly: sequence) else {
                return .unreadable(UnreadableEvent(sequence: number, eventID: nil, reason: "stream sequence \(sequence) is not one"))
            }
            message = try consumer.connection.message(at: streamSequence, of: consumer.stream)
        } catch {
            return .unreadable(UnreadableEvent(sequence: number, eventID: nil, reason: error.message))
        }
        guard let message else {
            return .unreadable(UnreadableEvent(sequence: number, eventID: nil, reason: "the stream no longer holds it (deleted or aged out)"))
        }
        do {
            let (_, decoded) = try FleetEvent.check(
                text: message.text, subject: message.subject, prefix: consumer.settings.prefix, maxBytes: consumer.settings.maxMessageBytes
            ).get()
            // A letter of a refused message may have no id (its message had no Nats-Msg-Id).
            guard id == EventID(high: 0, low: 0) || decoded.id == id else {
                return .unreadable(
                    UnreadableEvent(
                        sequence: number, eventID: id,
                        reason: "the stream no longer holds it: stream sequence \(sequence) is now another event (\(decoded.id)); "
                            + "the stream was deleted and created again"))
            }
            return .event(
                EventEnvelope(
                    sequence: number, id: decoded.id, time: decoded.time, source: decoded.source, changeID: decoded.changeID,
                    event: decoded.event, publishedSequence: decoded.sequence, streamSequence: sequence))
        } catch {
            return .unreadable(
                UnreadableEvent(sequence: number, eventID: nil, reason: "subject \(Self.excerpt(message.subject)): \(error.description)"))
        }
    }

    package func waitForEvents(after sequence: Int64, timeout: Duration) throws(StoreError) -> Bool {
        state.wait(until: .now + timeout) { state in state.held.keys.contains { $0 > sequence } }
    }

    package func cursor(named name: String) throws(StoreError) -> Int64 {
        state.withLock { $0.cursors[name] ?? $0.acknowledged }
    }

    /// Acknowledges every held message up to `sequence`, in order, each confirmed by the server.
    package func setCursor(named name: String, to sequence: Int64) throws(StoreError) {
        let done = state.change { state -> [NATSMessage] in
            state.cursors[name] = max(state.cursors[name] ?? 0, sequence)
            let keys = state.held.keys.filter { $0 <= sequence }.sorted()
            defer {
                for key in keys { state.release(key) }
                state.acknowledged = max(state.acknowledged, sequence)
            }
            return keys.compactMap { state.held[$0]?.message }
        }
        // A message of a stream deleted since is not acknowledged: its acknowledgement would
        // name a sequence of the stream created in its place.
        for message in done where consumer.isCurrent(message) {
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
    package func acknowledge(_ sequence: Int64, for subscriber: String) {
        let message = state.change { state -> NATSMessage? in
            guard sequence > state.acknowledged else { return nil }
            return state.release(sequence)
        }
        guard let message, consumer.isCurrent(message) else { return }
        do throws(NATSError) {
            try message.acknowledge()
        } catch {
            // Not confirmed: the server sends it again after the ack wait (at least once).
            report("\(error.message); the event may be delivered again")
        }
    }

    package func cursors() throws(StoreError) -> [String: Int64] { state.withLock { $0.cursors } }

}
