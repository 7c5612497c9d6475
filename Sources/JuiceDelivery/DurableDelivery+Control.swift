#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking
import Synchronization

/// What callers ask of a runner (see `DurableDelivery`): start, wake, follow, deliver
/// what is pending, retry, shut down, and watch it work.
extension DurableDelivery {
    // MARK: Control

    /// Starts delivering in the background, on a thread of its own: whatever is
    /// pending now, then whatever `wake()` announces. Retries wait for their
    /// scheduled time. Idempotent.
    package func start() {
        beginOnce(\.started, thread: "juice.delivery.\(name)") { [self] in run() }
    }

    /// Sets `flag` and asks for a pass, unless it was set or shutdown began; then runs
    /// `body` on a thread named `thread`, once.
    private func beginOnce(_ flag: WritableKeyPath<State, Bool>, thread: String, _ body: @escaping @Sendable () -> Void) {
        let begins = update { state -> Bool in
            guard !state[keyPath: flag], !state.stopping else { return false }
            state[keyPath: flag] = true
            state.requests &+= 1
            return true
        }
        if begins { Self.spawn(thread, body) }
    }

    /// Tells the runner the journal may hold new events. Cheap (one atomic load while
    /// a pass is already due); safe from any thread, also inside an order's
    /// synchronous bus handler.
    package func wake() {
        guard !wakeQueued.load(ordering: .sequentiallyConsistent) else { return }
        wakeQueued.store(true, ordering: .sequentiallyConsistent)
        // Wakes the runner's thread only: no async caller waits for a request count.
        state.change { $0.requests &+= 1 }
    }

    /// Also watches the journal for events committed by other processes (for a
    /// long-running `juice deliver --follow`), on a thread of its own.
    package func follow() {
        start()
        beginOnce(\.following, thread: "juice.follow.\(name)") { [self] in watchJournal() }
    }

    /// Delivers everything pending now: the oldest undelivered event is attempted at
    /// once even if its next attempt was scheduled later. Returns when caught up, when
    /// disabled, when another runner holds the lease, or when a failed event's next
    /// attempt is further away than `patience` (nearer ones are awaited), or when the
    /// lease could not be taken for `patience` because the store failed (its lease file
    /// cannot be opened, its directory gone): that is retried every second and must
    /// not keep the caller forever.
    @discardableResult
    package func deliverPending(waitingAtMost patience: Duration = .zero) async -> DeliveryPhase {
        let target = update { state -> UInt64 in
            state.forceAttempt = true
            state.requests &+= 1
            return state.requests
        }
        start()
        let patienceSeconds = TimeSpan(patience).totalSeconds
        let isAnswered: @Sendable (State) -> Bool = { state in
            if state.finished || state.stopping { return true }
            guard state.settled >= target else { return false }
            switch state.phase {
            case .caughtUp, .disabled, .stopped, .leftToAnotherRunner: return true
            case .waitingForRetry(let until):
                let now = Date().timeIntervalSince1970
                if let since = state.leaseUnavailableSince, now - since >= patienceSeconds { return true }
                return until - now > patienceSeconds
            case .starting, .delivering: return false
            }
        }
        _ = await waiters.wait(until: nil, current: { state.withLock { isAnswered($0) } }, for: isAnswered)
        return state.withLock { $0.finished || $0.stopping ? .stopped : $0.phase }
    }

    /// Re-enables a disabled subscriber, forgets the failing event's attempts (it gets
    /// a full schedule again), optionally resends every dead letter once (removing
    /// those that succeed), then delivers what is pending as `deliverPending` does.
    @discardableResult
    package func retry(deadLetters: Bool, waitingAtMost patience: Duration = .zero) async -> DeliveryPhase {
        let journal = journal
        let name = name
        _ = await Self.offPool { [self] in write { () throws(StoreError) in try journal.setRetryState(nil, for: name) } }
        update { state in
            state.forgetAttempts = true
            if deadLetters { state.redeliverDeadLetters = true }
        }
        return await deliverPending(waitingAtMost: patience)
    }

    /// Finishes what was asked before the call (events announced by `wake()`, a
    /// pending `deliverPending`), stops, and returns by `deadline`: a delivery still
    /// under way then is cancelled and its event stays undelivered in the journal.
    package func shutdown(deadline: ContinuousClock.Instant) async {
        let target = state.withLock { $0.requests }
        // Idle: a pass that served every request so far has settled, and no pass is under
        // way. The phase matters as well as the count: a pass that follows a retry's timed
        // wait serves the same requests as the pass that settled before that wait.
        let isIdle: @Sendable (State) -> Bool = { state in
            if !state.started || state.finished { return true }
            guard state.settled >= target else { return false }
            switch state.phase {
            case .starting, .delivering: return false
            default: return true
            }
        }
        _ = await waiters.wait(until: deadline, current: { state.withLock { isIdle($0) } }, for: isIdle)
        let (sequence, inFlight) = update { state -> (Int64?, Set<Int64>) in
            state.stopping = true
            return (state.currentSequence, state.inFlight)
        }
        if sequence != nil || !inFlight.isEmpty { destination.cancelSends() }
        let handedOver = inFlight.sorted() + (sequence.map { [$0] } ?? [])
        if !handedOver.isEmpty {
            // Said here, before returning, so the line is out before the process exits.
            reportError(Self.handedOver(handedOver))
        }
        let isFinished: @Sendable (State) -> Bool = { !$0.started || $0.finished }
        _ = await waiters.wait(until: deadline, current: { state.withLock { isFinished($0) } }, for: isFinished)
        // A runner stuck past the deadline (a write waiting for another process's
        // lock) writes nothing more once it sees this; it lets its lease go when it ends.
        update { state in
            state.writesClosed = true
            state.phase = .stopped
        }
    }

    // MARK: Observation

    /// What the runner is doing now.
    package var phase: DeliveryPhase { state.withLock { $0.phase } }

    /// What the runner did in this process.
    package var statistics: DeliveryStatistics { state.withLock { $0.statistics } }

    /// Waits until `condition` holds for the phase and statistics, or until `deadline`
    /// (nil: none); returns whether it held. Woken by the runner's changes, never a
    /// poll: for a caller that watches a runner work (a test, a tool).
    package func wait(
        until deadline: ContinuousClock.Instant?,
        for condition: @escaping @Sendable (DeliveryPhase, DeliveryStatistics) -> Bool
    ) async -> Bool {
        let holds: @Sendable (State) -> Bool = { condition($0.phase, $0.statistics) }
        return await waiters.wait(until: deadline, current: { state.withLock { holds($0) } }, for: holds)
    }

    /// The following runner's watch (a thread of its own, started by `follow`): wakes
    /// the runner at each commit, of this process or another.
    ///
    /// Events that came between the runner's first read and the watch's first look (a
    /// fleet consumer's feed holds its first messages at once) are not news to the watch:
    /// one wake after that look hands them to the runner, which may otherwise wait for
    /// the next event for ever.
    func watchJournal() {
        var seen = (try? journal.lastSequence()) ?? 0
        wake()
        while !isStopping {
            do {
                if try journal.waitForEvents(after: seen, timeout: Self.followBound) {
                    seen = try journal.lastSequence()
                    wake()
                }
            } catch {
                reportStoreFailure(error)
                _ = state.wait(until: .now + .seconds(1)) { $0.stopping }
            }
        }
    }
}
