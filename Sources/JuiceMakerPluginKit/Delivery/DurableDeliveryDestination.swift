import JuiceMakerCore
import JuicePrimitives
import Locking

/// Where a durable subscriber's events go: an HTTP endpoint, a program's stdin, a
/// stream. The one shape every destination has: it is handed a window of events and
/// answers each one, accepted, to be retried (after a time it may name) or refused
/// for good (`DeliveryAnswer`). It knows nothing of journals, cursors or retries:
/// the runner (`DurableDelivery`) keeps those.
///
/// The runner never has more than the window's events unanswered (`intake`), never
/// offers an event while it is unanswered, and offers an event again (same `id`) when
/// its answer was a failure, or when it was never answered before shutdown.
public protocol DurableDestination: Sendable {
    /// How the runner hands events over: a window of answers that come on any thread
    /// (one at a time is a window of 1), or pipelined runs answered on the calling
    /// thread. Read once, when the runner is made.
    var intake: DeliveryIntake { get }

    /// Hands `offer.events` over, in journal order, and answers each of them once
    /// through `offer.answer`, on any thread, before or after returning (a
    /// `.pipelined` destination: in order, on this thread, before returning; it stops
    /// at its first failure, and the events after it are offered again later).
    func send(_ offer: DeliveryOffer)

    /// Ends every send under way now, promptly (shutdown's deadline came): each is still
    /// answered, with a failure. Later sends are not affected.
    func cancelSends()

    /// Releases what the destination holds (a connection, a running program) by
    /// `deadline`. Called once the runner stopped offering events; may be called again.
    func stop(deadline: ContinuousClock.Instant) async
}

/// How a runner hands events to its destination (`DurableDestination.intake`).
public enum DeliveryIntake: Sendable, Equatable {
    /// Up to `size` events unanswered at once, each offered alone; answers come on any
    /// thread, in any order. 1 delivers one at a time, in journal order.
    case window(Int)
    /// Runs of events in journal order, offered on the runner's own thread (a client
    /// library that blocks up to its own timeout), answered in order before `send`
    /// returns, with the readable events after them (`DeliveryOffer.upcoming`) to start
    /// on: a pipelined publisher's window is its flight. The runner reads `readBatch`
    /// events at once and writes its cursor once per `cursorBatch` accepted events (and
    /// at each batch's end, on a failure, at shutdown): a crash resends at most that
    /// many, so resends must be cheap and deduplicated (`Nats-Msg-Id`).
    case pipelined(readBatch: Int, cursorBatch: Int)

    /// Events unanswered at once, at most (a pipelined run counts as one).
    package var window: Int {
        if case .window(let size) = self { max(1, size) } else { 1 }
    }
}

/// Events offered to a destination, and where its answers go.
public struct DeliveryOffer: Sendable {
    /// The events to hand over, in journal order, each with its CloudEvents JSON as
    /// the journal committed it when the runner read that (`text`; else `nil`: encode it).
    public let events: ArraySlice<CommittedEvent>
    /// For a `.pipelined` destination: the readable events after `events` in the
    /// runner's batch, in order, before its `kinds` filter. It may start on them
    /// (publish ahead), but answers each only in a later offer. Empty otherwise.
    public let upcoming: ArraySlice<CommittedEvent>
    private let answered: @Sendable (Int, DeliveryFailure?) -> Bool

    /// An offer whose answers go to `answered` (the position in `events`, counted from
    /// 0, and `nil` for accepted or why not; it returns `false` once the runner stops).
    package init(
        _ events: ArraySlice<CommittedEvent>, upcoming: ArraySlice<CommittedEvent> = [],
        answered: @escaping @Sendable (Int, DeliveryFailure?) -> Bool
    ) {
        self.events = events
        self.upcoming = upcoming
        self.answered = answered
    }

    /// Answers `events[events.startIndex + position]`. Returns `false` once the runner
    /// is stopping: a pipelined destination then returns at once, without handing over
    /// more.
    @discardableResult
    public func answer(_ position: Int, _ answer: DeliveryAnswer) -> Bool {
        answered(position, answer.failure)
    }
}

/// A destination's answer for one event it was offered.
public enum DeliveryAnswer: Sendable, Equatable {
    /// Delivered: the runner moves past it for good.
    case accepted
    /// Not now (`message` says why, in one line, never with a secret): tried again on the
    /// subscriber's retry schedule, or after `after` seconds when the destination names a
    /// time (`Retry-After`); once the schedule is used up it becomes a dead letter.
    case retry(PluginMessage, after: Double? = nil)
    /// Refused for good (HTTP 410 Gone: the endpoint asked never to be called again):
    /// delivery to this subscriber stops until a person re-enables it (`juice subscribers
    /// retry`). Nothing is dead-lettered and the cursor stays.
    case refused(PluginMessage)

    /// The failure the runner keeps (its retry state's or dead letter's last error);
    /// `nil` when accepted.
    package var failure: DeliveryFailure? {
        switch self {
        case .accepted: nil
        case let .retry(message, after): DeliveryFailure(message, retryAfter: after)
        case let .refused(message): DeliveryFailure(message, isPermanent: true)
        }
    }
}

/// Why a delivery did not happen, and what the runner should do about it: retry on
/// its schedule, retry after the time the destination names, or stop for good.
public struct DeliveryFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in one line, in both languages. Must never contain a secret.
    public let message: PluginMessage
    /// `message` in English: what the journal keeps as a retry's or dead letter's
    /// last error.
    package var reason: String { message.english }
    /// The destination asked to wait this many seconds before the next attempt
    /// (`Retry-After`); `nil` follows the retry schedule.
    public let retryAfter: Double?
    /// The destination refused for good (HTTP 410 Gone): stop delivering to it until a
    /// person re-enables it. Nothing is dead-lettered and the cursor stays.
    public let isPermanent: Bool

    public init(_ message: PluginMessage, retryAfter: Double? = nil, isPermanent: Bool = false) {
        self.message = message
        self.retryAfter = retryAfter
        self.isPermanent = isPermanent
    }

    public var description: String { reason }

    /// This failure as a destination's answer: refused for good when permanent, else a
    /// retry (after `retryAfter` when named).
    public var answer: DeliveryAnswer {
        isPermanent ? .refused(message) : .retry(message, after: retryAfter)
    }
}

/// Deliveries that are async work (a destination written with `async` calls): each
/// offered event in a task of its own, answered when the task ends, every task
/// cancelled by `cancel()`. A destination keeps one and forwards `send` and
/// `cancelSends` to it.
public final class DeliveryTasks: Sendable {
    private let tasks = Locked(Running())

    private struct Running {
        var next = 0
        var tasks: [Int: Task<Void, Never>] = [:]
        /// Tasks that ended before they were kept.
        var ended: Set<Int> = []
    }

    public init() {}

    /// Starts `deliver` for each event of `offer`, each answered with its outcome.
    public func run(_ offer: DeliveryOffer, _ deliver: @escaping @Sendable (EventEnvelope) async throws(DeliveryFailure) -> Void) {
        for (position, event) in zip(0..., offer.events) {
            let key = tasks.withLock { running -> Int in
                defer { running.next += 1 }
                return running.next
            }
            let task = Task.detached { [tasks] in
                var answer = DeliveryAnswer.accepted
                do throws(DeliveryFailure) {
                    try await deliver(event.envelope)
                } catch {
                    answer = error.answer
                }
                tasks.withLock { running in
                    if running.tasks.removeValue(forKey: key) == nil { running.ended.insert(key) }
                }
                offer.answer(position, answer)
            }
            tasks.withLock { running in
                if running.ended.remove(key) == nil { running.tasks[key] = task }
            }
        }
    }

    /// Cancels every task under way; each still answers.
    public func cancel() {
        for task in tasks.withLock({ $0.tasks.values }) { task.cancel() }
    }
}
