import Foundation
import Locking

/// Delivers a named subscriber's events from the journal to a destination, at least
/// once, in journal order, surviving crashes, restarts and dead endpoints.
///
/// Guarantees:
/// - **The journal is the truth.** The runner reads the events after the
///   subscriber's cursor; bus events and `wake()` only tell it to look. An event
///   committed while nothing ran is delivered by the next process that runs it.
/// - **In order, one at a time.** An event is offered only after every earlier one
///   was delivered, skipped by the `kinds` filter, or given up on as a dead letter.
/// - **At least once.** The cursor never moves past an event before the destination
///   accepted it (or it became a dead letter). The cursor is written after each
///   success; while a backlog streams faster than cursor writes are worth, writes are
///   coalesced (at most `cursorWriteInterval` apart, and only while a write would cost
///   over a tenth of the delivery time), so a crash may resend that much. The event
///   `id` is the same on every attempt: receivers use it as the idempotency key.
/// - **Retries on a schedule.** A failed event is retried per `schedule`; its
///   attempts and next attempt are kept in the journal (`retryState`), so the schedule
///   holds across processes. After the last attempt it is recorded as a dead letter
///   and the runner moves on. A permanent refusal disables delivery until `retry`.
/// - **Bounded shutdown.** `shutdown(deadline:)` returns by its deadline; no journal
///   write happens after it returns.
public final class DurableDelivery: Sendable {
    /// Events read from the journal at once.
    public static let batchSize = 256
    /// The longest a delivered event may wait for its cursor write while a backlog streams.
    public static let cursorWriteInterval = Duration.milliseconds(50)

    /// The subscriber's name, which is also its cursor's name.
    public let name: String
    /// The kinds delivered; others are passed over. `nil` means every kind.
    public let kinds: Set<EventKind>?
    /// When failed events are tried again.
    public let schedule: RetrySchedule

    let journal: any EventJournal
    let destination: any DurableDestination
    let reportError: @Sendable (String) -> Void
    private let signal = DurableDeliveryWakeSignal()
    // Internal, not private, where DurableDelivery+Failures.swift needs them.
    let state = Locked(State())
    /// Held around every journal write; `true` once shutdown has closed it.
    private let writes = Locked(false)

    struct State {
        var loop: Task<Void, Never>?
        var following = false
        var followerFinished = false
        var finished = false
        var stopping = false
        var phase = DeliveryPhase.starting
        /// Wake-ups asked for, and the last one a pass answered before going idle.
        var requests: UInt64 = 0
        var settled: UInt64 = 0
        var forceAttempt = false
        var redeliverDeadLetters = false
        var handledUpTo: Int64 = 0
        var persistedUpTo: Int64 = 0
        /// How long the last cursor write took.
        var cursorWriteCost = Duration.zero
        var statistics = DeliveryStatistics()
        var reported: Set<Int64> = []
        var storeFailureReported = false
    }

    /// A runner for `name`. Nothing happens until `start()`.
    ///
    /// - Parameter reportError: hears one line per problem a person should know of
    ///   (an event failing for the first time, a dead letter, a disabled destination).
    public init(
        name: String, journal: any EventJournal, kinds: Set<EventKind>? = nil, schedule: RetrySchedule = .standard,
        destination: any DurableDestination, reportError: @escaping @Sendable (String) -> Void
    ) {
        self.name = name
        self.journal = journal
        self.kinds = kinds
        self.schedule = schedule
        self.destination = destination
        self.reportError = reportError
    }

    // MARK: Control

    /// Starts delivering in the background: whatever is pending now, then whatever
    /// `wake()` announces. Retries wait for their scheduled time. Idempotent.
    public func start() {
        let started = state.withLock { state -> Bool in
            guard state.loop == nil, !state.stopping else { return false }
            state.requests &+= 1
            state.loop = Task.detached { [self] in await run() }
            return true
        }
        if !started { signal.signal() }
    }

    /// Tells the runner the journal may hold new events. Cheap; safe from any
    /// thread, also inside an order's synchronous bus handler.
    public func wake() {
        guard signal.needsSignal else { return }
        state.withLock { $0.requests &+= 1 }
        signal.signal()
    }

    /// Also watches the journal for events committed by other processes (for a
    /// long-running `juice deliver --follow`), on a thread of its own.
    public func follow() {
        start()
        let begun = state.withLock { state -> Bool in
            guard !state.following, !state.stopping else { return false }
            state.following = true
            return true
        }
        if begun { Thread { [self] in watchJournal() }.start() }
    }

    /// Delivers everything pending now: the oldest undelivered event is attempted at
    /// once even if its next attempt was scheduled later. Returns when caught up, when
    /// disabled, or when a failed event's next attempt is further away than
    /// `patience` (nearer ones are awaited).
    @discardableResult
    public func deliverPending(waitingAtMost patience: Duration = .zero) async -> DeliveryPhase {
        let target = state.withLock { state -> UInt64 in
            state.forceAttempt = true
            state.requests &+= 1
            return state.requests
        }
        start()
        signal.signal()
        let patienceSeconds = Double(patience.components.seconds) + Double(patience.components.attoseconds) / 1e18
        while true {
            let (phase, settled, finished) = state.withLock { ($0.phase, $0.settled, $0.finished || ($0.stopping && $0.loop == nil)) }
            if finished { return .stopped }
            if settled >= target {
                switch phase {
                case .caughtUp, .disabled, .stopped: return phase
                case .waitingForRetry(let until) where until - Date().timeIntervalSince1970 > patienceSeconds: return phase
                default: break
                }
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Re-enables a disabled subscriber, forgets the failing event's attempts (it gets
    /// a full schedule again), optionally resends every dead letter once (removing
    /// those that succeed), then delivers what is pending as `deliverPending` does.
    @discardableResult
    public func retry(deadLetters: Bool, waitingAtMost patience: Duration = .zero) async -> DeliveryPhase {
        _ = write { () throws(StoreError) in try journal.setRetryState(nil, for: name) }
        if deadLetters { state.withLock { $0.redeliverDeadLetters = true } }
        return await deliverPending(waitingAtMost: patience)
    }

    /// Finishes what was asked before the call (events announced by `wake()`, a
    /// pending `deliverPending`), stops, and returns by `deadline`: a delivery still
    /// under way then is cancelled and its event stays undelivered in the journal.
    public func shutdown(deadline: ContinuousClock.Instant) async {
        let target = state.withLock { $0.requests }
        while ContinuousClock.now < deadline {
            let done = state.withLock { $0.loop == nil || $0.finished || $0.settled >= target }
            if done { break }
            try? await Task.sleep(for: .milliseconds(2))
        }
        let loop = state.withLock { state -> Task<Void, Never>? in
            state.stopping = true
            return state.loop
        }
        signal.signal()
        while ContinuousClock.now < deadline {
            let done = state.withLock { ($0.finished || $0.loop == nil) && (!$0.following || $0.followerFinished) }
            if done { break }
            try? await Task.sleep(for: .milliseconds(2))
        }
        writes.withLock { closed in
            if !closed { persistCursorHoldingWrites() }
            closed = true
        }
        loop?.cancel()
        state.withLock { $0.phase = .stopped }
    }

    // MARK: Observation

    /// What the runner is doing now.
    public var phase: DeliveryPhase { state.withLock { $0.phase } }

    /// What the runner did in this process.
    public var statistics: DeliveryStatistics { state.withLock { $0.statistics } }

    // MARK: The loop

    var isStopping: Bool { state.withLock { $0.stopping } }

    private func run() async {
        while !isStopping {
            signal.rearm()
            let served = state.withLock { $0.requests }
            if state.withLock({ state in defer { state.redeliverDeadLetters = false }; return state.redeliverDeadLetters }) {
                await redeliverDeadLetters()
            }
            let cursor: Int64
            let batch: [EventEnvelope]
            let retry: DeliveryRetryState?
            do {
                cursor = max(try journal.cursor(named: name), state.withLock { $0.handledUpTo })
                batch = try journal.events(after: cursor, limit: Self.batchSize)
                retry = try journal.retryState(for: name)
                state.withLock { $0.handledUpTo = max($0.handledUpTo, cursor) }
            } catch {
                reportStoreFailure(error)
                settle(.waitingForRetry(until: Date().timeIntervalSince1970 + 1), served: served)
                await signal.wait(timeout: .seconds(1))
                continue
            }
            if let retry, retry.disabled {
                persistCursor()
                settle(.disabled(reason: retry.lastError), served: served)
                await signal.wait(timeout: nil)
                continue
            }
            if batch.isEmpty {
                persistCursor()
                settle(.caughtUp, served: served)
                await signal.wait(timeout: nil)
                continue
            }
            state.withLock { $0.phase = .delivering }
            await deliver(batch, retry: retry, served: served)
        }
        persistCursor()
        state.withLock { state in
            state.finished = true
            state.phase = .stopped
        }
    }

    /// Delivers `batch` in order until it ends, an event fails or must wait.
    private func deliver(_ batch: [EventEnvelope], retry: DeliveryRetryState?, served: UInt64) async {
        var lastWrite = ContinuousClock.now
        for envelope in batch {
            if isStopping { return }
            if let kinds, !kinds.contains(envelope.event.kind) {
                state.withLock { $0.handledUpTo = envelope.sequence; $0.statistics.skipped += 1 }
                continue
            }
            var attempts = 0
            var early: DeliveryRetryState?
            if let retry, retry.sequence == envelope.sequence {
                attempts = retry.attempts
                let wait = retry.nextAttemptAt - Date().timeIntervalSince1970
                let forced = state.withLock { state in defer { state.forceAttempt = false }; return state.forceAttempt }
                if wait > 0, forced { early = retry }
                if wait > 0, !forced {
                    persistCursor()
                    settle(.waitingForRetry(until: retry.nextAttemptAt), served: served)
                    await signal.wait(timeout: .milliseconds(Int64(min(wait, 86_400 * 7) * 1000) + 1))
                    return
                }
            }
            state.withLock { state in
                state.forceAttempt = false
                state.statistics.attempts += 1
            }
            do throws(DeliveryFailure) {
                try await destination.deliver(envelope)
            } catch {
                persistCursor()
                recordFailure(of: envelope, attempt: attempts + 1, failure: error, early: early)
                return
            }
            state.withLock { $0.handledUpTo = envelope.sequence; $0.statistics.delivered += 1 }
            if attempts > 0 {
                _ = write { () throws(StoreError) in try journal.setRetryState(nil, for: name) }
            }
            // Coalesce cursor writes only while they would cost more than a tenth of
            // the time spent delivering: slow endpoints get a write per event.
            let sinceWrite = ContinuousClock.now - lastWrite
            if sinceWrite >= Self.cursorWriteInterval || sinceWrite >= state.withLock({ $0.cursorWriteCost }) * 10 {
                persistCursor()
                lastWrite = .now
            }
        }
        persistCursor()
    }

    private func watchJournal() {
        var seen = (try? journal.lastSequence()) ?? 0
        while !isStopping {
            do {
                if try journal.waitForEvents(after: seen, timeout: .milliseconds(200)) {
                    seen = try journal.lastSequence()
                    wake()
                }
            } catch {
                reportStoreFailure(error)
                Thread.sleep(forTimeInterval: 1)
            }
        }
        state.withLock { $0.followerFinished = true }
    }

    private func settle(_ phase: DeliveryPhase, served: UInt64) {
        state.withLock { state in
            state.phase = phase
            state.settled = max(state.settled, served)
        }
    }

    /// Runs `body` unless shutdown has closed the journal to this runner; a store
    /// failure is reported. Returns whether it ran and succeeded.
    func write(_ body: () throws(StoreError) -> Void) -> Bool {
        writes.withLock { closed -> Bool in
            guard !closed else { return false }
            do throws(StoreError) {
                try body()
                return true
            } catch {
                reportStoreFailure(error)
                return false
            }
        }
    }

    func persistCursor() {
        writes.withLock { closed in if !closed { persistCursorHoldingWrites() } }
    }

    private func persistCursorHoldingWrites() {
        let (target, needed) = state.withLock { ($0.handledUpTo, $0.handledUpTo > $0.persistedUpTo) }
        guard needed else { return }
        do throws(StoreError) {
            let started = ContinuousClock.now
            try journal.setCursor(named: name, to: target)
            let cost = ContinuousClock.now - started
            state.withLock { state in
                state.persistedUpTo = max(state.persistedUpTo, target)
                state.cursorWriteCost = cost
            }
        } catch {
            reportStoreFailure(error)
        }
    }

    private func reportStoreFailure(_ error: StoreError) {
        if state.withLock({ state in defer { state.storeFailureReported = true }; return !state.storeFailureReported }) {
            reportError("cannot read or update its place in the journal: \(error); delivery resumes when the store answers")
        }
    }
}
