import Locking

/// A JetStream durable consumer that outlives this process: created when missing,
/// bound to, and let go of without deleting it (`juice fleet deliver`).
///
/// While fetching it watches that the consumer still exists: when a fetch comes back
/// empty and the last look is `checkInterval` old, it asks the server. A consumer that
/// is gone (`nats consumer rm`, an operator's cleanup) is created again from just after
/// the ack floor last seen, bound to anew, and said in one line to `report`: nothing
/// acknowledged is sent again except what was acknowledged since that look, nothing
/// unacknowledged is lost. A stream that is gone is said once; fetching then fails for
/// good (a stream made again starts its sequences over: a new process reads it).
public final class DurableConsumer: Sendable {
    /// Seconds between looks at whether the consumer still exists, while fetches come
    /// back empty.
    static let checkInterval = Duration.seconds(2)

    public let connection: NATSConnection
    public let stream: String
    public let name: String
    public let settings: ConsumerSettings
    private let report: @Sendable (String) -> Void
    private let state: Locked<State>

    private struct State {
        var subscription: NATSSubscription?
        var ackFloor: UInt64
        var ackWait: Double
        var lastLook = ContinuousClock.now
        var stopped = false
        /// The stream was deleted under this consumer (said once).
        var streamGone = false
    }

    /// Creates the consumer when missing (or brings its settings to `settings`) and binds to it.
    /// - Parameter report: hears one line when the consumer had to be created again.
    public init(
        connection: NATSConnection, stream: String, name: String, settings: ConsumerSettings,
        report: @escaping @Sendable (String) -> Void
    ) throws(NATSError) {
        self.connection = connection
        self.stream = stream
        self.name = name
        self.settings = settings
        self.report = report
        let (consumer, _) = try connection.ensureConsumer(name, of: stream, settings: settings)
        let subscription = try connection.bind(name, of: stream, filter: settings.filter)
        state = Locked(State(subscription: subscription, ackFloor: consumer.ackFloor, ackWait: consumer.ackWait))
    }

    /// The consumer's ack wait in seconds, as the server has it.
    public var ackWait: Double { state.withLock { $0.ackWait } }

    /// Up to `batch` messages; empty when none came within `timeout` seconds (or after `stop()`).
    public func fetch(batch: Int, timeout: Double) throws(NATSError) -> [NATSMessage] {
        guard let subscription = state.withLock({ $0.stopped ? nil : $0.subscription }) else { return [] }
        let messages = try subscription.fetch(batch: batch, timeout: timeout)
        let looks = state.withLock { state -> Bool in
            if !messages.isEmpty || state.stopped { return false }
            guard ContinuousClock.now - state.lastLook >= Self.checkInterval else { return false }
            state.lastLook = .now
            return true
        }
        if looks { try look() }
        return messages
    }

    /// Asks the server whether the consumer exists; creates it again and binds to it when not.
    private func look() throws(NATSError) {
        // A stream made again starts its sequences over, below what this process has
        // acknowledged: only a new process reads it right.
        if state.withLock({ $0.streamGone }) { throw Self.streamGone(stream) }
        let seen: ConsumerState?
        do {
            seen = try connection.consumer(name, of: stream)
        } catch {
            if error.kind == .noStream {
                state.withLock { $0.streamGone = true }
                report(Self.streamGone(stream).message)
                throw Self.streamGone(stream)
            }
            throw error
        }
        if let seen {
            state.withLock { state in state.ackFloor = max(state.ackFloor, seen.ackFloor) }
            return
        }
        let floor = state.withLock { $0.ackFloor }
        let (made, created) = try connection.ensureConsumer(name, of: stream, settings: settings, resumingAfter: floor)
        let fresh = try connection.bind(name, of: stream, filter: settings.filter)
        let old = state.withLock { state -> NATSSubscription? in
            defer {
                state.subscription = state.stopped ? nil : fresh
                state.ackWait = made.ackWait
            }
            return state.subscription
        }
        old?.stop()
        if state.withLock({ $0.stopped }) { fresh.stop() }
        report(
            created
                ? "consumer \(name) of stream \(stream) was deleted on the server; created it again from stream sequence \(floor + 1)"
                : "consumer \(name) of stream \(stream) was deleted on the server and created again by another deliverer; reading from it")
    }

    private static func streamGone(_ stream: String) -> NATSError {
        NATSError(
            "stream \(stream) was deleted on the server; start juice fleet deliver again once a machine has created it again",
            kind: .noStream)
    }

    /// Lets go of the consumer (it stays on the server): a fetch under way returns.
    public func stop() {
        let subscription = state.withLock { state -> NATSSubscription? in
            state.stopped = true
            return state.subscription
        }
        subscription?.stop()
    }
}
