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
import Dispatch
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking
import Synchronization

/// Delivers a named subscriber's events from the journal to a destination, at least
/// once, surviving crashes, restarts and dead endpoints.
///
/// Guarantees:
/// - **The journal is the truth.** The runner reads the events after the
///   subscriber's cursor; bus events and `wake()` only tell it to look. An event
///   committed while nothing ran is delivered by the next process that runs it.
/// - **In order, one at a time,** unless the destination keeps a window: an event is
///   offered only after every earlier one was delivered, skipped by the `kinds` filter,
///   or given up on as a dead letter.
/// - **A window** (`DeliveryIntake.window` above 1): up to `window` events
///   are in flight at once, in no order between them; an event is sent only while fewer
///   than `window` offered events lie between the cursor and it, so the cursor, which
///   moves only over the contiguous prefix of events done with, is never more than
///   `window` delivered events behind (what a crash resends). Each failed event has its
///   own attempts and schedule (the journal's `retryState` keeps the oldest one's), a
///   `retryAfter` pauses every send until then, and a permanent refusal stops sending
///   at once. A journal that acknowledges events one by one
///   (`EventAcknowledgingJournal`) hears each as it is done with.
/// - **At least once, one resend per crash at most.** The cursor never moves past an
///   event before the destination accepted it (or it became a dead letter), and it is
///   written after each success before the next event is offered, so a crash resends
///   at most the event under way (a destination with a `cursorBatch` above 1: at most
///   that many accepted events, written together). The event `id` is the same on every attempt:
///   receivers use it as the idempotency key.
/// - **One runner per subscriber.** A runner delivers only while it holds the
///   subscriber's lease (`EventJournal.takeDeliveryLease`); one that cannot take it
///   leaves delivery to the holder (`DeliveryPhase.leftToAnotherRunner`), tries again
///   at each wake-up and, while following, every `leaseRetryInterval`.
/// - **Off the cooperative pool.** Journal reads and writes, and the waits between
///   passes, run on the runner's own thread; a windowed destination's answers come
///   from its own threads (shutdown cancels what is unanswered), a pipelined one's
///   `send` runs on the runner's thread itself.
/// - **Retries on a schedule.** A failed event is retried per `schedule`; its
///   attempts and next attempt are kept in the journal (`retryState`), so the schedule
///   holds across processes. After the last attempt it is recorded as a dead letter
///   and the runner moves on. A permanent refusal disables delivery until `retry`.
/// - **Bounded shutdown.** `shutdown(deadline:)` returns by its deadline. No journal
///   write starts after it returns (one already blocked on another process's lock
///   may still finish).
///
/// This file is the runner's one state machine: its state and its thread's loop. What
/// callers ask of it is in `DurableDelivery+Control.swift`; a pass in journal order in
/// `DurableDelivery+InOrder.swift`, and how one event or a run of them is handed to the
/// destination in `DurableDelivery+Offer.swift`; a window of them in
/// `DurableDelivery+Window.swift` (its bookkeeping in `DeliveryWindow`); its journal
/// bookkeeping and its failure handling in `DurableDelivery+Journal.swift` and
/// `DurableDelivery+Failures.swift`.
package final class DurableDelivery: Sendable {
    /// Events read from the journal at once.
    package static let batchSize = 256
    /// How often a following runner that could not take the lease tries again.
    package static let leaseRetryInterval = Duration.milliseconds(250)
    /// The longest one wait of a follower's watch: a bound that lets the watch of a
    /// stopped runner end, not a poll (the wait returns at the first new event).
    static let followBound = Duration.seconds(2)

    /// The subscriber's name, which is also its cursor's name.
    package let name: String
    /// The kinds delivered; others are passed over. `nil` means every kind.
    package let kinds: Set<EventKind>?
    /// When failed events are tried again.
    package let schedule: RetrySchedule

    let journal: any DeliveryJournal
    let destination: any DurableDestination
    /// How `destination` takes events (`DurableDestination.intake`); read once.
    let intake: DeliveryIntake
    /// `journal` when its events are acknowledged one by one; looked up once.
    let acknowledgingJournal: (any EventAcknowledgingJournal)?
    /// Events read from the journal at once: `batchSize`, or what a pipelined
    /// destination asks for (`DeliveryIntake.pipelined`).
    let readSize: Int
    /// How many accepted events may go unrecorded before the cursor is written.
    let cursorBatch: Int
    let reportError: @Sendable (PluginMessage) -> Void
    let describeStoreError: @Sendable (StoreError) -> PluginMessage
    /// The runner's state; its thread waits on it, `change` wakes it.
    // Internal, not private, where DurableDelivery+Failures.swift needs it.
    let state = LockedCondition(State())
    /// Async callers (`deliverPending`, `shutdown`) waiting for the state to move.
    let waiters = AsyncWaiters<State>()
    /// Set by `wake`, cleared when a pass begins: while set, another wake adds nothing.
    let wakeQueued = Atomic<Bool>(false)

    struct State: Sendable {
        var started = false
        var following = false
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
        /// `statistics.delivered` when the cursor was last written with a delivery time.
        var deliveredWhenPersisted = 0
        var statistics = DeliveryStatistics()
        var reported: Set<Int64> = []
        var storeFailureReported = false
        /// `true` once shutdown has closed the journal to this runner.
        var writesClosed = false
        /// The event offered alone and not yet answered (`attempt`), whose send
        /// shutdown cancels.
        var currentSequence: Int64?
        var lease: DeliveryLease?
        /// A windowed destination's answers not yet taken by the runner's thread.
        var answers: [(sequence: Int64, failure: DeliveryFailure?)] = []
        /// The events a windowed destination has in flight.
        var inFlight: Set<Int64> = []
        /// Set by `retry`: the window forgets its failed events' attempts.
        var forgetAttempts = false
        /// When the store first failed to give the lease, in this run of failures
        /// (Unix seconds); `nil` once a lease was taken or found held elsewhere.
        var leaseUnavailableSince: Double?
    }

    /// A runner for `name`. Nothing happens until `start()`.
    ///
    /// - Parameters:
    ///   - name: the subscriber's name, under which its cursor, lease, retry state and
    ///     dead letters are kept.
    ///   - journal: where it reads events after its cursor and keeps that bookkeeping.
    ///   - kinds: only these kinds of event are delivered; `nil` for all.
    ///   - schedule: the waits after each failed attempt, before an event becomes a
    ///     dead letter.
    ///   - destination: where each event is handed over.
    ///   - reportError: hears one line per problem a person should know of (an event
    ///     failing for the first time, a dead letter, a disabled destination).
    ///   - describeStoreError: words a store failure for those lines
    ///     (`PluginHost.describeStoreError`).
    package init(
        name: String, journal: any DeliveryJournal, kinds: Set<EventKind>? = nil, schedule: RetrySchedule = .standard,
        destination: any DurableDestination, reportError: @escaping @Sendable (PluginMessage) -> Void,
        describeStoreError: @escaping @Sendable (StoreError) -> PluginMessage = { PluginMessage(untranslated: $0.detail) }
    ) {
        self.name = name
        self.journal = journal
        self.kinds = kinds
        self.schedule = schedule
        self.destination = destination
        intake = destination.intake
        acknowledgingJournal = JuiceMakerPluginKit.acknowledgingJournal(journal)
        switch intake {
        case .window:
            readSize = Self.batchSize
            cursorBatch = 1
        case let .pipelined(readBatch, cursorBatch):
            readSize = max(1, readBatch)
            self.cursorBatch = max(1, cursorBatch)
        }
        self.reportError = reportError
        self.describeStoreError = describeStoreError
    }

    // MARK: The runner's thread

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Changes the state, wakes the runner's thread and the async callers it satisfies.
    @discardableResult
    func update<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        state.change { state in changed(&state, by: body) }
    }

    /// Changes what only async callers wait on (the statistics, `handledUpTo`,
    /// `forceAttempt`): as `update`, without waking the threads that wait on the state
    /// (they wait for `requests` and `stopping` only). Once or twice per event.
    @discardableResult
    func progress<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
        state.withLock { state in changed(&state, by: body) }
    }

    /// Applies `body` under the state's lock, then resumes the async callers it satisfies.
    private func changed<Result>(_ state: inout State, by body: (inout State) -> Result) -> Result {
        let result = body(&state)
        waiters.resumeSatisfied(by: state)
        return result
    }

    func run() {
        // The thread reading ahead for a pipelined destination, made when first needed.
        var reader: JournalReadAhead?
        // A windowed destination's window, kept across passes.
        var window: DeliveryWindow?
        while !isStopping {
            let served = state.withLock { $0.requests }
            wakeQueued.store(false, ordering: .sequentiallyConsistent)
            let standing = takeLease()
            // Written only when it changes: not a lock and a waiter scan on every pass.
            let unavailableSince = state.withLock { $0.leaseUnavailableSince }
            if (standing == .unavailable) != (unavailableSince != nil) {
                progress { $0.leaseUnavailableSince = standing == .unavailable ? Date().timeIntervalSince1970 : nil }
            }
            switch standing {
            case .held: break
            case .heldElsewhere:
                settle(.leftToAnotherRunner, served: served)
                let following = state.withLock { $0.following }
                waitForWork(after: served, until: following ? .now + Self.leaseRetryInterval : nil)
                continue
            case .unavailable:
                waitForStore(served: served)
                continue
            }
            if update({ state in
                defer { state.redeliverDeadLetters = false }; return state.redeliverDeadLetters
            }) {
                redeliverDeadLetters()
            }
            if case .window(let size) = intake {
                deliverWindowed(size: max(1, size), window: &window, served: served)
                continue
            }
            let cursor: Int64
            let batch: [CommittedEntry]
            let retry: DeliveryRetryState?
            do {
                cursor = max(try journal.cursor(named: name), state.withLock { $0.handledUpTo })
                // A pipelined destination may send the JSON as committed: read with the events.
                batch = try journal.committedEntries(after: cursor, limit: readSize)
                retry = try journal.retryState(for: name)
                update { $0.handledUpTo = max($0.handledUpTo, cursor) }
            } catch {
                reportStoreFailure(error)
                waitForStore(served: served)
                continue
            }
            if pausesDisabled(retry, served: served) { continue }
            if batch.isEmpty {
                pause(.caughtUp, served: served)
                continue
            }
            update { $0.phase = .delivering }
            deliver(batch, retry: retry, served: served, reader: &reader)
        }
        reader?.stop()
        persistCursor()
        // Let the lease go before saying so: a runner started after `shutdown`
        // returned can take it at once.
        state.withLock { $0.lease.take() }?.release()
        update { state in
            state.finished = true
            state.phase = .stopped
        }
    }

    private enum LeaseStanding { case held, heldElsewhere, unavailable }

    /// Whether this runner holds the lease, taking it if it is free; a store that
    /// cannot say is reported (once) and asked again a second later.
    private func takeLease() -> LeaseStanding {
        if state.withLock({ $0.lease != nil }) { return .held }
        do throws(StoreError) {
            guard let lease = try journal.takeDeliveryLease(for: name) else { return .heldElsewhere }
            update { $0.lease = lease }
            return .held
        } catch {
            reportStoreFailure(error)
            return .unavailable
        }
    }

    /// Sleeps on the state until a wake-up after `served`, shutdown, or `deadline`.
    func waitForWork(after served: UInt64, until deadline: ContinuousClock.Instant?) {
        _ = state.wait(until: deadline) { $0.requests != served || $0.stopping }
    }

    /// Saves the cursor, settles in `phase` and sleeps until a wake-up after `served`,
    /// shutdown, or `deadline`: the end of a pass that has nothing to send now.
    func pause(_ phase: DeliveryPhase, served: UInt64, until deadline: ContinuousClock.Instant? = nil) {
        persistCursor()
        settle(phase, served: served)
        waitForWork(after: served, until: deadline)
    }

    /// Whether `retry` says a permanent refusal stopped the subscriber (until `juice
    /// subscribers retry`): then the pass pauses, `.disabled`, until a wake-up.
    func pausesDisabled(_ retry: DeliveryRetryState?, served: UInt64) -> Bool {
        guard let retry, retry.disabled else { return false }
        pause(.disabled(reason: retry.lastError), served: served)
        return true
    }

    /// When a retry `seconds` from now is due (at most a week ahead): one timed wait for
    /// the scheduled time, which a wake-up ends early.
    static func retryDeadline(in seconds: Double) -> ContinuousClock.Instant {
        .now + .milliseconds(Int64(min(seconds, 86_400 * 7) * 1000) + 1)
    }

    /// The store could not answer: waiting, looked at again in a second or at a wake-up.
    func waitForStore(served: UInt64) {
        settle(.waitingForRetry(until: Date().timeIntervalSince1970 + 1), served: served)
        waitForWork(after: served, until: .now + .seconds(1))
    }

    func settle(_ phase: DeliveryPhase, served: UInt64) {
        update { state in
            state.phase = phase
            state.settled = max(state.settled, served)
        }
    }
}
