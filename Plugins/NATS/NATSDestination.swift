import Dispatch
import FleetConfiguration
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking

/// The stream as a durable destination: one connection, made on first use (and again
/// after it is lost), the stream checked once per connection.
///
/// Pipelined: the runner offers runs of events on its own thread
/// (`BlockingDurableDestination`), and each is accepted only once its PubAck is in.
/// But the events after it (the run's later ones, then the runner's `upcoming` ones,
/// with the same `kinds`) are published without waiting, up to `window` outstanding,
/// topped up once `topUp` of them are acknowledged; when the next one's turn comes
/// its PubAck is usually in already. Bodies are the journal's committed CloudEvents JSON
/// (`CommittedEvent.text`, read with the events), not encoded again. The runner writes the cursor once
/// per `cursorBatch` PubAcks, in journal order, never past an event whose PubAck is not
/// in. After a failure every outstanding publish is forgotten and sent again later
/// with the same `Nats-Msg-Id`: the stream's duplicate window drops those that had
/// been stored.
final class NATSDestination: BlockingDurableDestination {
    /// Publishes waiting for their PubAck at most.
    static let window = 256
    /// The window is topped up once this many of it are acknowledged: often, so the
    /// server gets a steady stream rather than bursts (a top-up costs a binary search).
    static let topUp = 32
    /// The cursor is written once per this many PubAcks (and at the end of each journal
    /// batch, on a failure, at shutdown): a crash resends at most these, and the
    /// stream's duplicate window (`Nats-Msg-Id`) drops what it had stored.
    var cursorBatch: Int { Self.window }
    let options: NATSOptions
    let subjectPrefix: String
    let stream: String
    let replicas: Int
    /// The machine named in subjects when an event's own `source` names none (events
    /// committed before the `machine` key existed).
    let machine: String
    let kinds: Set<EventKind>?
    private let connection = Locked<NATSConnection?>(nil)
    /// What the publishing side keeps between offers; its lock also keeps publishes one
    /// at a time (the runner never offers two at once, but `deliver` runs on `queue`).
    private let publishing = Locked(Publishing())
    private let closed = Locked(false)
    private let queue = DispatchQueue(label: "juice.nats.publish")

    /// The events published ahead, and the subjects of the last source seen.
    private struct Publishing {
        /// Sequences published and not yet awaited, in order: `sent[head...]`.
        var sent: [Int64] = []
        var head = 0
        /// The source of the events `subjects` are for.
        var source = ""
        /// Subjects of `source`'s events by kind and item (`subject(for:window:)`).
        var subjects: [Int: String] = [:]

        var first: Int64? { head < sent.count ? sent[head] : nil }
        var count: Int { sent.count - head }

        mutating func removeAll() {
            sent.removeAll(keepingCapacity: true)
            head = 0
        }

        /// Drops the first; the awaited part is let go once it outgrows a window, so a
        /// follower that never drains the window keeps a bounded array.
        mutating func removeFirst() {
            head += 1
            if head == sent.count {
                removeAll()
            } else if head >= NATSDestination.window {
                sent.removeFirst(head)
                head = 0
            }
        }
    }

    init(
        options: NATSOptions, subjectPrefix: String, stream: String, replicas: Int, machine: String,
        kinds: Set<EventKind>?
    ) {
        self.kinds = kinds
        self.options = options
        self.subjectPrefix = subjectPrefix
        self.stream = stream
        self.replicas = replicas
        self.machine = machine
    }

    /// On the runner's own thread: libnats waits for each PubAck up to `timeout`. The
    /// events published ahead are the run's later ones, then the runner's `upcoming`.
    func deliverBlocking(
        _ events: ArraySlice<CommittedEvent>, upcoming: ArraySlice<CommittedEvent>, accepted: (Int) -> Bool
    ) -> DeliveryFailure? {
        publishing.withLock { window in publish(events, upcoming: upcoming, window: &window, accepted: accepted) }
    }

    /// One event alone (the runner offers runs through `deliverBlocking`; this is the
    /// plain `DurableDestination` call, without publishing ahead).
    func deliver(_ envelope: EventEnvelope) async throws(DeliveryFailure) {
        // libnats blocks until the PubAck: off the cooperative pool, on a queue of its own.
        let failure: DeliveryFailure? = await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(
                    returning: publishing.withLock { window in
                        publish([CommittedEvent(envelope, text: nil)], upcoming: [], window: &window) { _ in true }
                    })
            }
        }
        if let failure { throw failure }
    }

    /// The subject `envelope` goes to.
    func subject(for envelope: EventEnvelope) -> String {
        Fleet.subject(prefix: subjectPrefix, machine: Fleet.machine(fromSource: envelope.source) ?? machine, event: envelope.event)
    }

    /// `subject(for:)`, kept per kind and item for the last source seen (one source
    /// for all of a machine's events), so a subject is made once, not per event.
    private func subject(for envelope: EventEnvelope, window: inout Publishing) -> String {
        if window.subjects.isEmpty || window.source != envelope.source {
            window.source = envelope.source
            window.subjects = [:]
        }
        let key: Int
        switch envelope.event {
        case let .stockChanged(fruit, _, _, _): key = Fruit.allCases.firstIndex(of: fruit) ?? 0
        case let .juiceMade(juice, _, _): key = 16 + (Juice.allCases.firstIndex(of: juice) ?? 0)
        case let .orderFailed(juice, _, _): key = 32 + (Juice.allCases.firstIndex(of: juice) ?? 0)
        }
        if let known = window.subjects[key] { return known }
        let made = subject(for: envelope)
        window.subjects[key] = made
        return made
    }

    /// Publishes each of `events` unless it was published ahead, tops the window up
    /// (from the later `events`, then `upcoming`)
    /// once `topUp` of it are acknowledged, waits for each one's PubAck in turn and says so
    /// to `accepted`. Returns the failure of the first event not accepted.
    private func publish(
        _ events: ArraySlice<CommittedEvent>, upcoming: ArraySlice<CommittedEvent>, window: inout Publishing, accepted: (Int) -> Bool
    ) -> DeliveryFailure? {
        let live: NATSConnection
        do throws(DeliveryFailure) {
            live = try connected()
        } catch {
            return error
        }
        for (offset, committed) in zip(0..., events) {
            let envelope = committed.envelope
            do throws(NATSError) {
                var sending = SendingAhead(wasEmpty: window.count == 0)
                if window.first != envelope.sequence {
                    // Not the one published ahead (the first offer, or after a failure): start over from it.
                    live.forgetOutstandingAcks()
                    window.removeAll()
                    sending.wasEmpty = true
                    // With nothing outstanding, a refusal throws.
                    _ = try send(committed, on: live, window: &window, sending: &sending)
                }
                // Publish ahead once `topUp` of the window are acknowledged (not once per event):
                // the run's later events, then the runner's upcoming ones.
                if window.count <= Self.window - Self.topUp {
                    let after = window.sent.last ?? envelope.sequence
                    let later = events[(events.startIndex + offset + 1)...]
                    var more = true
                    for next in later[Self.firstIndex(in: later, after: after)...] {
                        guard more, window.count < Self.window else { break }
                        more = try send(next, on: live, window: &window, sending: &sending)
                    }
                    for next in upcoming[Self.firstIndex(in: upcoming, after: window.sent.last ?? after)...] {
                        guard more, window.count < Self.window else { break }
                        guard kinds?.contains(next.envelope.event.kind) ?? true else { continue }
                        more = try send(next, on: live, window: &window, sending: &sending)
                    }
                }
                window.removeFirst()
                try live.awaitAck(messageID: envelope.id)
            } catch {
                window.removeAll()
                live.forgetOutstandingAcks()
                // A lost connection is made again on the next attempt. So is one on which a
                // PubAck never came: libnats still counts that publish as outstanding
                // (there is no per-publish timer: `publishAsync`), and a new connection
                // starts with none. And one whose stream went away: a new connection
                // checks the stream, and creates it.
                if !live.isConnected || error.kind == .timeout || error.kind == .noStream { drop(live, window: &window) }
                return Self.failure(error)
            }
            if !accepted(offset + 1) { return nil }
        }
        return nil
    }

    /// The index of the first event of `events` (in journal order) after `sequence`:
    /// a binary search, as a run can be long and is searched once per window top-up.
    private static func firstIndex(in events: ArraySlice<CommittedEvent>, after sequence: Int64) -> Int {
        var low = events.startIndex
        var high = events.endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if events[middle].envelope.sequence > sequence { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// How publishing ahead went in this offer.
    private struct SendingAhead {
        /// Nothing was outstanding when it began: a failure to send is then the offered event's own.
        var wasEmpty: Bool
    }

    /// Publishes `next` into the window; `false` (and nothing more this offer) when
    /// libnats refused it: the next offer finds it unsent and sends it itself. Throws
    /// when it was the offered event itself that could not be sent.
    private func send(
        _ next: CommittedEvent, on live: NATSConnection, window: inout Publishing, sending: inout SendingAhead
    ) throws(NATSError) -> Bool {
        do throws(NATSError) {
            try live.publishAsync(
                subject: subject(for: next.envelope, window: &window), body: next.text ?? CloudEventFormat.encode(next.envelope),
                headers: Self.headers, messageID: next.envelope.id)
            window.sent.append(next.envelope.sequence)
            return true
        } catch {
            if sending.wasEmpty && window.count == 0 { throw error }
            return false
        }
    }

    private static let headers = [("Content-Type", CloudEventFormat.contentType)]

    /// The connection, made (and the stream checked or created) if there is none.
    private func connected() throws(DeliveryFailure) -> NATSConnection {
        if let live = connection.withLock({ $0 }) { return live }
        guard !closed.withLock({ $0 }) else {
            throw DeliveryFailure(PluginMessage(english: "not published: shutting down", korean: "발행하지 않았습니다. 종료하는 중입니다"))
        }
        let made: NATSConnection
        do {
            var options = options
            // Above the window, so libnats never stalls a publish: the window is the bound.
            options.maxOutstandingAcks = Self.window * 2
            made = try NATSConnection(options)
            try made.ensureStream(stream, subjects: "\(subjectPrefix).>", replicas: replicas)
        } catch {
            throw Self.failure(error)
        }
        connection.withLock { $0 = made }
        return made
    }

    private func drop(_ live: NATSConnection, window: inout Publishing) {
        connection.withLock { current in
            if current === live { current = nil }
        }
        window.removeAll()
        live.close()
    }

    /// Refused credentials and a stream that cannot take the subjects stop delivery
    /// until a person fixes them (`juice subscribers retry`); the rest is retried.
    private static func failure(_ error: NATSError) -> DeliveryFailure {
        let permanent = error.kind == .authorization || error.kind == .streamMismatch
        return DeliveryFailure(PluginMessage(untranslated: error.message), isPermanent: permanent)
    }

    func close() {
        closed.withLock { $0 = true }
        let live = connection.withLock { current in
            defer { current = nil }
            return current
        }
        live?.close()
    }
}
