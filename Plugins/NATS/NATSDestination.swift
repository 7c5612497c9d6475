import FleetConfiguration
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking
import NATSClient

/// The stream as a durable destination: one connection, made on first use (and again
/// after it is lost), the stream checked once per connection.
///
/// Published in flights: the runner offers runs of events on its own thread
/// (`DeliveryIntake.pipelined`), and each is accepted only once its PubAck is in.
/// When an offered event's PubAck is not in, a flight starts with it: it and the events
/// after it (the run's later ones, then the runner's `upcoming` ones with the same
/// `kinds`; the runner reads `readBatch` at a time), up to `flight`, are published
/// without waiting, then this thread sleeps until libnats has every answer
/// (`NATSConnection.completePublishes`). So a PubAck costs no code of ours and wakes
/// no thread; a flight wakes this thread once. The flight's events before its first
/// failure, in journal order, are stored: each is accepted when its turn comes, and
/// the failed one fails then. Bodies are the journal's committed CloudEvents JSON
/// (`CommittedEvent.text`, read with the events), not encoded again. The runner writes
/// the cursor once per `cursorBatch` accepted events, in journal order. An event after
/// a failure is sent again in a later flight with the same `Nats-Msg-Id`: the stream's
/// duplicate window drops it if it had been stored.
final class NATSDestination: DurableDestination {
    /// Events published before waiting for their answers, at most. Each flight ends in
    /// a pause: the server idles from its last PubAck until the next flight's first
    /// message, so long flights publish faster (`juice-bench fleet` measures it).
    static let flight = 2048
    /// Pipelined: the runner reads half a flight at once, so that a flight (the rest of
    /// the run and the events read ahead after it) can be long, and writes the cursor
    /// once per flight of accepted events (and at the end of each journal batch, on a
    /// failure, at shutdown): a crash resends at most these, and the stream's duplicate
    /// window (`Nats-Msg-Id`) drops what it had stored.
    var intake: DeliveryIntake { .pipelined(readBatch: Self.flight / 2, cursorBatch: Self.flight) }
    let options: NATSOptions
    let subjectPrefix: String
    let stream: String
    let replicas: Int
    let retention: StreamRetention
    /// The machine named in subjects when an event's own `source` names none (events
    /// committed before the `machine` key existed).
    let machine: String
    let kinds: Set<EventKind>?
    private let connection = Locked<NATSConnection?>(nil)
    /// What the publishing side keeps between offers; its lock also keeps publishes one
    /// at a time (the runner never offers two at once).
    private let publishing = Locked(Publishing())
    private let closed = Locked(false)

    /// What the last flight left, and the subjects of the last source seen.
    private struct Publishing {
        /// Sequences of the last flight that are stored and not yet accepted, in
        /// journal order: `stored[head...]`.
        var stored: [Int64] = []
        var head = 0
        /// The last flight's first event that was not stored, and why.
        var failed: (sequence: Int64, error: NATSError)?
        /// The source of the events `subjects` are for.
        var source = ""
        /// Subjects of `source`'s events by kind and item (`subject(for:window:)`).
        var subjects: [Int: String] = [:]

        var nextStored: Int64? { head < stored.count ? stored[head] : nil }

        mutating func reset() {
            stored.removeAll(keepingCapacity: true)
            head = 0
            failed = nil
        }

        mutating func acceptNext() {
            head += 1
            if head == stored.count {
                stored.removeAll(keepingCapacity: true)
                head = 0
            }
        }
    }

    init(
        options: NATSOptions, subjectPrefix: String, stream: String, replicas: Int, retention: StreamRetention, machine: String,
        kinds: Set<EventKind>?
    ) {
        self.retention = retention
        self.kinds = kinds
        self.options = options
        self.subjectPrefix = subjectPrefix
        self.stream = stream
        self.replicas = replicas
        self.machine = machine
    }

    /// On the runner's own thread: libnats waits for each PubAck up to `timeout`. The
    /// events published ahead are the run's later ones, then the offer's `upcoming`.
    /// Answers each accepted event in order, then the first that failed.
    func send(_ offer: DeliveryOffer) {
        var accepted = 0
        let failure = publishing.withLock { window in
            publish(offer.events, upcoming: offer.upcoming, window: &window) { count in
                accepted = count
                return offer.answer(count - 1, .accepted)
            }
        }
        if let failure { offer.answer(accepted, failure.answer) }
    }

    /// Nothing to cancel: each publish is bounded by the connection's timeout.
    func cancelSends() {}

    /// Closes the connection when the publisher shuts down.
    func stop(deadline: ContinuousClock.Instant) async { close() }

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

    /// Accepts each of `events` whose PubAck is in; for the first whose PubAck is not,
    /// flies a flight from it (`fly`). Returns the failure of the first event not accepted.
    private func publish(
        _ events: ArraySlice<CommittedEvent>, upcoming: ArraySlice<CommittedEvent>, window: inout Publishing, accepted: (Int) -> Bool
    ) -> DeliveryFailure? {
        for (offset, committed) in zip(0..., events) {
            let sequence = committed.envelope.sequence
            if window.nextStored != sequence {
                // Not stored by the last flight: it failed there, or a flight starts with it.
                let remembered = window.failed
                window.reset()
                if let remembered, remembered.sequence == sequence { return Self.failure(remembered.error) }
                let live: NATSConnection
                do throws(DeliveryFailure) {
                    live = try connected()
                } catch {
                    return error
                }
                fly(events[(events.startIndex + offset)...], upcoming: upcoming, on: live, window: &window)
                if window.nextStored != sequence {
                    let error = window.failed?.error ?? NATSError("publishing on \(live.displayServers): not published", kind: .other)
                    window.reset()
                    return Self.failure(error)
                }
            }
            window.acceptNext()
            if !accepted(offset + 1) { return nil }
        }
        return nil
    }

    /// Publishes `run` and the `upcoming` events after it (those with the same `kinds`),
    /// up to `flight` in all, without waiting; then waits for all their answers and
    /// leaves in `window` the stored ones before the first failure, and that failure.
    private func fly(
        _ run: ArraySlice<CommittedEvent>, upcoming: ArraySlice<CommittedEvent>, on live: NATSConnection, window: inout Publishing
    ) {
        var sequences: [Int64] = []
        var ids: [EventID] = []
        sequences.reserveCapacity(Self.flight)
        ids.reserveCapacity(Self.flight)
        var unsent: (sequence: Int64, error: NATSError)?
        func send(_ next: CommittedEvent) -> Bool {
            do throws(NATSError) {
                try live.publishAsync(
                    subject: subject(for: next.envelope, window: &window), body: next.text ?? CloudEventFormat.encode(next.envelope),
                    headers: Self.headers, messageID: next.envelope.id)
            } catch {
                unsent = (next.envelope.sequence, error)
                return false
            }
            sequences.append(next.envelope.sequence)
            ids.append(next.envelope.id)
            return true
        }
        var more = true
        for next in run {
            guard more, ids.count < Self.flight else { break }
            more = send(next)
        }
        if let last = run.last?.envelope.sequence {
            for next in upcoming[Self.firstIndex(in: upcoming, after: last)...] {
                guard more, ids.count < Self.flight else { break }
                guard kinds?.contains(next.envelope.event.kind) ?? true else { continue }
                more = send(next)
            }
        }
        let failures = ids.isEmpty ? [:] : live.completePublishes()
        var storedCount = ids.count
        if !failures.isEmpty, let first = ids.firstIndex(where: { failures[$0.description] != nil }), let error = failures[ids[first].description] {
            storedCount = first
            window.failed = (sequences[first], error)
        } else if let unsent {
            window.failed = unsent
        }
        window.stored.append(contentsOf: sequences[..<storedCount])
        // A lost connection is made again on the next attempt. So is one on which a
        // PubAck never came, and one whose stream went away: a new connection checks
        // the stream, and creates it.
        if let error = window.failed?.error, !live.isConnected || error.kind == .timeout || error.kind == .noStream {
            drop(live)
        }
    }

    /// The index of the first event of `events` (in journal order) after `sequence`:
    /// a binary search, as a run can be long.
    private static func firstIndex(in events: ArraySlice<CommittedEvent>, after sequence: Int64) -> Int {
        var low = events.startIndex
        var high = events.endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if events[middle].envelope.sequence > sequence { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// `content-type` in lower case: NATS headers are case-sensitive, and the CloudEvents
    /// NATS and JetStream bindings (and the SDKs that implement them) read this name.
    private static let headers = [("content-type", CloudEventFormat.contentType)]

    /// The connection, made (and the stream checked or created) if there is none.
    private func connected() throws(DeliveryFailure) -> NATSConnection {
        if let live = connection.withLock({ $0 }) { return live }
        guard !closed.withLock({ $0 }) else {
            throw DeliveryFailure(PluginMessage(english: "not published: shutting down", korean: "발행하지 않았습니다. 종료하는 중입니다"))
        }
        let made: NATSConnection
        do {
            var options = options
            // Above the flight, so libnats never stalls a publish: the flight is the bound.
            options.maxOutstandingAcks = Self.flight * 2
            made = try NATSConnection(options)
            try made.ensureStream(stream, subjects: "\(subjectPrefix).>", replicas: replicas, retention: retention)
        } catch {
            throw Self.failure(error)
        }
        connection.withLock { $0 = made }
        return made
    }

    private func drop(_ live: NATSConnection) {
        connection.withLock { current in
            if current === live { current = nil }
        }
        live.close()
    }

    /// Refused credentials, a stream that cannot take the subjects and a `tls://` server
    /// without TLS stop delivery until a person fixes them (`juice subscribers retry`);
    /// the rest is retried.
    private static func failure(_ error: NATSError) -> DeliveryFailure {
        let permanent = [.authorization, .streamMismatch, .tlsRequired, .configuration].contains(error.kind)
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

/// An event's id is its message's id (`Nats-Msg-Id`), the stream's duplicate window's key:
/// handed to libnats as text made on the stack, with no string made per message.
extension EventID: NATSMessageID {}
