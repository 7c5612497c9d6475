import Locking

/// A JetStream durable consumer that outlives this process: created when missing,
/// bound to, and let go of without deleting it (`juice fleet deliver`).
///
/// It knows which stream it reads (`StreamIdentity`: when the server created it). While
/// fetching it watches the stream and the consumer: when a fetch comes back empty or
/// fails and the last look is `checkInterval` old, it asks the server.
/// - A consumer that is gone (`nats consumer rm`, an operator's cleanup) is created again
///   from just after the ack floor last seen, bound to anew, and said in one line to
///   `report`: nothing acknowledged is sent again except what was acknowledged since that
///   look, nothing unacknowledged is lost.
/// - A stream that is gone is said in one line, and again each `StreamAbsence.reportInterval`
///   while it stays gone; fetching goes on (empty).
/// - A new stream of the same name (deleted and created again, also within a second) is
///   a new history: the consumer is created on it from its first message, said in one
///   line. Messages fetched before are never acknowledged (`isCurrent`): one of the old
///   stream would name a sequence of the new one (a new stream's message fetched before
///   the look is sent again after its ack wait, and then acknowledged).
package final class DurableConsumer: Sendable {
    /// Between looks at whether the stream and the consumer still exist, while fetches
    /// come back empty or fail.
    static let checkInterval = Duration.seconds(2)

    package let connection: NATSConnection
    package let stream: String
    package let name: String
    package let settings: ConsumerSettings
    private let report: @Sendable (String) -> Void
    private let state: Locked<State>

    private struct State {
        var subscription: NATSSubscription?
        var ackFloor: UInt64
        var ackWait: Double
        var lastLook = ContinuousClock.now
        var stopped = false
        /// The stream read now.
        var identity: StreamIdentity
        /// Counts the new streams read (the subscription's `generation`).
        var generation = 0
        /// Since when the stream is gone, and when that was last said; `nil` while it exists.
        var absence = StreamAbsence()
    }

    /// Creates the consumer when missing (or brings its settings to `settings`) and binds to it.
    /// - Parameter report: hears one line when the consumer had to be created again, when
    ///   the stream is gone or new, and when the consumer keeps a setting NATS cannot change.
    package init(
        connection: NATSConnection, stream: String, name: String, settings: ConsumerSettings,
        report: @escaping @Sendable (String) -> Void
    ) throws(NATSError) {
        self.connection = connection
        self.stream = stream
        self.name = name
        self.settings = settings
        self.report = report
        guard let summary = try connection.stream(stream) else { throw Self.noStream(stream) }
        let ensured = try connection.ensureConsumer(name, of: stream, settings: settings)
        if let note = ensured.note { report(note) }
        let subscription = try connection.bind(name, of: stream, filter: settings.filter)
        state = Locked(
            State(subscription: subscription, ackFloor: ensured.state.ackFloor, ackWait: ensured.state.ackWait, identity: summary.identity))
    }

    /// The consumer's ack wait in seconds, as the server has it.
    package var ackWait: Double { state.withLock { $0.ackWait } }

    /// The stream read now.
    package var identity: StreamIdentity { state.withLock { $0.identity } }

    /// Whether `message` was fetched since the stream read now was found: only such a
    /// message may be acknowledged (or handed back), as its acknowledgement names a
    /// sequence of this stream.
    package func isCurrent(_ message: NATSMessage) -> Bool {
        message.generation == state.withLock { $0.generation }
    }

    /// Up to `batch` messages; empty when none came within `timeout` seconds (or after
    /// `stop()`), and while the stream is gone.
    package func fetch(batch: Int, timeout: Double) throws(NATSError) -> [NATSMessage] {
        guard let subscription = state.withLock({ $0.stopped ? nil : $0.subscription }) else { return [] }
        let messages: [NATSMessage]
        do {
            messages = try subscription.fetch(batch: batch, timeout: timeout)
        } catch {
            // The consumer or its stream may be gone (a fetch from a consumer that is not
            // there fails): a look says which, and mends what it can.
            guard lookIsDue() else { throw error }
            try look()
            // A server away fails the look; a consumer or stream mended, or a stream gone, does not.
            return []
        }
        if messages.isEmpty, lookIsDue() { try look() }
        return messages
    }

    /// Whether the last look is `checkInterval` old (then it counts as done now).
    private func lookIsDue() -> Bool {
        state.withLock { state -> Bool in
            guard !state.stopped, ContinuousClock.now - state.lastLook >= Self.checkInterval else { return false }
            state.lastLook = .now
            return true
        }
    }

    /// Asks the server whether the stream and the consumer exist, and mends what is not as it was.
    private func look() throws(NATSError) {
        guard let summary = try connection.stream(stream) else { return streamIsGone() }
        let (known, floor) = state.withLock { ($0.identity, $0.ackFloor) }
        // A stream created again has another creation time; its sequences start over, below what was acknowledged.
        guard summary.identity == known else { return try read(newStream: summary) }
        let back = state.withLock { $0.absence.ended(at: .now) }
        if let back { report("stream \(stream) is there again, the same stream (not found for \(Self.seconds(back))); delivery goes on") }
        let seen: ConsumerState?
        do {
            seen = try connection.consumer(name, of: stream)
        } catch {
            if error.kind == .noStream { return streamIsGone() }
            throw error
        }
        if let seen {
            state.withLock { state in state.ackFloor = max(state.ackFloor, seen.ackFloor) }
            return
        }
        let ensured = try connection.ensureConsumer(name, of: stream, settings: settings, resumingAfter: floor)
        // The stream may have been created again between the looks: then the consumer was
        // made at the old stream's place in the new one. Made by this call, it goes.
        if let now = try connection.stream(stream), now.identity != known {
            if ensured.created { try? connection.deleteConsumer(name, of: stream) }
            return try read(newStream: now)
        }
        try rebind(ensured.state, identity: known)
        report(
            ensured.created
                ? "consumer \(name) of stream \(stream) was deleted on the server; created it again from stream sequence \(floor + 1)"
                : "consumer \(name) of stream \(stream) was deleted on the server and created again by another deliverer; reading from it")
    }

    /// Reads `summary`, a stream other than the one read so far, from its first message.
    private func read(newStream summary: StreamSummary) throws(NATSError) {
        var fromTheStart = settings
        fromTheStart.start = .all
        // Another deliverer of this consumer may have created it on the new stream already: then it is used.
        let ensured = try connection.ensureConsumer(name, of: stream, settings: fromTheStart)
        let gone = state.withLock { $0.absence.away(at: .now) }
        try rebind(ensured.state, identity: summary.identity)
        let away = gone.map { " (the stream was gone for \(Self.seconds($0)))" } ?? ""
        report(
            "stream \(stream) is a new stream, created \(summary.identity)\(away): the one read before was deleted; "
                + "reading the new one from its first message (sequence \(summary.firstSequence)); events already delivered are not sent again")
    }

    /// Binds to the consumer anew, on the stream `identity`.
    private func rebind(_ consumer: ConsumerState, identity: StreamIdentity) throws(NATSError) {
        let generation = state.withLock { $0.identity == identity ? $0.generation : $0.generation + 1 }
        let fresh = try connection.bind(name, of: stream, filter: settings.filter, generation: generation)
        let old = state.withLock { state -> NATSSubscription? in
            defer {
                state.subscription = state.stopped ? nil : fresh
                state.ackWait = consumer.ackWait
                state.generation = generation
                if state.identity != identity { state.ackFloor = 0 }
                state.ackFloor = max(state.ackFloor, consumer.ackFloor)
                state.identity = identity
                state.absence = StreamAbsence()
            }
            return state.subscription
        }
        old?.stop()
        if state.withLock({ $0.stopped }) { fresh.stop() }
    }

    /// Says that the stream is gone: at once, then each `StreamAbsence.reportInterval` while it stays gone.
    private func streamIsGone() {
        guard let away = state.withLock({ $0.absence.gone(at: .now) }) else { return }
        let still = away < Self.checkInterval ? "" : " (gone for \(Self.seconds(away)))"
        report(
            "stream \(stream) was deleted on the server\(still); nothing to deliver until a machine creates it again, "
                + "then delivery goes on by itself from its first message (said again every minute while it is gone)")
    }

    /// `d` as whole seconds, `12 s`.
    static func seconds(_ duration: Duration) -> String { "\(duration.components.seconds) s" }

    private static func noStream(_ stream: String) -> NATSError {
        NATSError("there is no stream \(stream) on the server (deleted just now?); no machine has published to it since", kind: .noStream)
    }

    /// Lets go of the consumer (it stays on the server): a fetch under way returns.
    package func stop() {
        let subscription = state.withLock { state -> NATSSubscription? in
            state.stopped = true
            return state.subscription
        }
        subscription?.stop()
    }
}
