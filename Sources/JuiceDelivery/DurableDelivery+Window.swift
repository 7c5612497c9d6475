#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking
import Synchronization

/// How the runner keeps several events in flight to a windowed destination (`DeliveryIntake.window`)
/// (see `DurableDelivery`): sends within the window, takes each answer as it comes,
/// moves the cursor over the acknowledged prefix, and gives each failed event its own
/// schedule.
extension DurableDelivery {
    /// One pass: delivers through `window` (kept across passes while the cursor is
    /// where it left it) until nothing is in flight and nothing can be sent now; then
    /// settles (caught up, waiting for a retry, disabled) and waits for work as the
    /// one-at-a-time pass does. Returns with nothing in flight.
    func deliverWindowed(size: Int, window kept: inout DeliveryWindow?, served: UInt64) {
        let cursor: Int64
        let retry: DeliveryRetryState?
        do {
            cursor = max(try journal.cursor(named: name), state.withLock { $0.handledUpTo })
            retry = try journal.retryState(for: name)
        } catch {
            reportStoreFailure(error)
            waitForStore(served: served)
            return
        }
        if pausesDisabled(retry, served: served) { return }
        progress { $0.handledUpTo = max($0.handledUpTo, cursor) }
        let reused = kept.flatMap { $0.base == cursor && $0.size == size ? $0 : nil }
        var pass = WindowPass(
            window: reused ?? DeliveryWindow(size: size, base: cursor),
            written: retry.flatMap { $0.sequence > cursor ? $0 : nil }, served: served)
        if reused == nil {
            // Failures kept from the last window, and the journal's for the oldest event.
            pass.restoring = (kept?.failures ?? []).filter { $0.sequence > cursor }
            if let written = pass.written {
                pass.restoring.append((written.sequence, written.attempts, written.nextAttemptAt, written.lastError))
            }
            pass.skipping = deadLetterSequences(after: cursor)
        }
        defer { kept = pass.window }
        run(&pass)
    }

    /// What one pass keeps besides the window.
    struct WindowPass {
        var window: DeliveryWindow
        /// The retry state the journal holds for this subscriber (the oldest event's).
        var written: DeliveryRetryState?
        /// Requests served by the last read.
        var served: UInt64
        var restoring: [(sequence: Int64, attempts: Int, until: Double, lastError: String)] = []
        /// Dead letters after the cursor (given up on before a crash): not sent again.
        var skipping: Set<Int64> = []
        /// The last read found the end of the journal.
        var readAll = false
        var disabled = false
        var cancelled = false
        var storeFailed = false
        var unrecorded = 0
    }

    private func run(_ pass: inout WindowPass) {
        while true {
            let (answers, stopping, force, forget, requests, redeliver) = state.withLock { state in
                defer {
                    state.answers.removeAll(keepingCapacity: true)
                    state.forceAttempt = false
                    state.forgetAttempts = false
                }
                return (
                    state.answers, state.stopping, state.forceAttempt, state.forgetAttempts, state.requests,
                    state.redeliverDeadLetters
                )
            }
            if forget {
                pass.window.forgetAttempts()
                pass.restoring = []
            }
            let now = Date().timeIntervalSince1970
            var tally = DeliveryStatistics()
            for answer in answers { take(answer, into: &pass, stopping: stopping, now: now, tally: &tally) }
            let passed = pass.window.advance()
            if !passed.isEmpty { pass.unrecorded += passed.count }
            let base = pass.window.base
            progress { state in
                state.handledUpTo = max(state.handledUpTo, base)
                state.statistics.attempts += tally.attempts
                state.statistics.delivered += tally.delivered
                state.statistics.failed += tally.failed
                state.statistics.deadLettered += tally.deadLettered
            }
            if pass.unrecorded >= cursorBatch {
                persistCursor()
                pass.unrecorded = 0
            }
            if !pass.disabled, !stopping { keepRetryState(&pass, now: now) }
            if stopping {
                if pass.window.inFlight == 0 { return }
                if !pass.cancelled {
                    pass.cancelled = true
                    destination.cancelSends()
                }
                waitForAnswers(after: requests)
                continue
            }
            // `retry --dead-letters` asked for its resend: the run loop does it before this
            // pass may settle the request that came with it (its `requests` are read above,
            // after the flag was set). Nothing in flight: the window is kept for the next pass.
            if redeliver, pass.window.inFlight == 0 {
                persistCursor()
                return
            }
            if (pass.disabled || pass.storeFailed), pass.window.inFlight == 0 {
                persistCursor()
                if pass.storeFailed { waitForStore(served: pass.served) }
                return
            }
            if !pass.disabled, !pass.storeFailed, pass.window.wantsMore, !pass.readAll || requests != pass.served {
                read(into: &pass, served: requests)
            }
            if !pass.disabled, !pass.storeFailed {
                send(pass.window.takeSendable(now: now, force: force))
            }
            // `takeSendable` also marks in flight: read it after.
            if pass.window.inFlight > 0 {
                waitForAnswers(after: requests)
                continue
            }
            if pass.disabled || pass.storeFailed { continue }
            if pass.window.held == 0, pass.readAll {
                pass.unrecorded = 0
                pause(.caughtUp, served: pass.served)
                return
            }
            guard let due = pass.window.nextDue() else {
                // Nothing held can move (not expected): look again at the next wake-up.
                waitForWork(after: pass.served, until: .now + .seconds(1))
                return
            }
            if due <= now { continue }
            pass.unrecorded = 0
            pause(.waitingForRetry(until: due), served: pass.served, until: Self.retryDeadline(in: due - now))
            // A wake-up (new events, `deliverPending`, `retry --dead-letters`) ends the
            // pass: the run loop serves it with a fresh read. Only the retry's due time
            // goes on with this one.
            if state.withLock({ $0.requests != pass.served || $0.redeliverDeadLetters || $0.stopping }) { return }
        }
    }

    /// Sleeps until an answer, a wake-up after `requests`, a retry's reset or shutdown.
    private func waitForAnswers(after requests: UInt64) {
        _ = state.wait(until: nil) { state in
            !state.answers.isEmpty || state.stopping || state.requests != requests || state.forgetAttempts
        }
    }

    /// Reads the next events into the window: those the filter passes over are done at
    /// once, an unreadable row becomes a dead letter at once.
    /// `served`: the requests counted when this turn took `forceAttempt`. A request
    /// counted since (`deliverPending` setting the flag) is not served by this read: the
    /// pass must not settle as having answered it without the attempt it asks for.
    private func read(into pass: inout WindowPass, served: UInt64) {
        // Wake-ups after this point start another read: `wake()` counts again.
        wakeQueued.store(false, ordering: .sequentiallyConsistent)
        pass.served = served
        let entries: [JournalEntry]
        do {
            entries = try journal.entries(after: pass.window.readThrough, limit: readSize)
        } catch {
            reportStoreFailure(error)
            pass.storeFailed = true
            return
        }
        pass.readAll = entries.count < readSize
        var skipped = 0
        for entry in entries {
            switch entry {
            case .event(let envelope):
                let offered = (kinds?.contains(envelope.event.kind) ?? true) && !pass.skipping.contains(envelope.sequence)
                if !offered { skipped += 1 }
                pass.window.append(envelope.sequence, envelope: offered ? envelope : nil)
            case .unreadable(let row):
                guard recordUnreadable(row) else {
                    pass.storeFailed = true
                    return
                }
                acknowledgingJournal?.acknowledge(row.sequence, for: name)
                pass.window.append(row.sequence, envelope: nil)
            }
        }
        if skipped > 0 { progress { $0.statistics.skipped += skipped } }
        for failure in pass.restoring {
            pass.window.restore(failure.sequence, attempts: failure.attempts, until: failure.until, lastError: failure.lastError)
        }
    }

    private func send(_ envelopes: [EventEnvelope]) {
        guard !envelopes.isEmpty else { return }
        update { state in
            state.phase = .delivering
            for envelope in envelopes { state.inFlight.insert(envelope.sequence) }
        }
        for envelope in envelopes {
            let sequence = envelope.sequence
            destination.send(
                DeliveryOffer([CommittedEvent(envelope, text: nil)]) { [state] _, failure in
                    state.change { state in
                        state.answers.append((sequence, failure))
                        state.inFlight.remove(sequence)
                        return !state.stopping
                    }
                })
        }
    }

    /// Books one answer: delivered; or failed, on the event's own schedule (a
    /// `Retry-After` pauses every send), a dead letter after its last attempt, or a
    /// permanent refusal that stops delivery at once.
    private func take(
        _ answer: (sequence: Int64, failure: DeliveryFailure?), into pass: inout WindowPass, stopping: Bool, now: Double,
        tally: inout DeliveryStatistics
    ) {
        guard let slot = pass.window.slot(answer.sequence), let envelope = slot.envelope else { return }
        tally.attempts += 1
        guard let failure = answer.failure else {
            tally.delivered += 1
            pass.window.answer(answer.sequence, becomes: .done, countsAttempt: false, error: nil)
            acknowledgingJournal?.acknowledge(answer.sequence, for: name)
            return
        }
        tally.failed += 1
        if stopping {
            // Cancelled by shutdown: handed over to the next run, no attempt counted.
            pass.window.answer(answer.sequence, becomes: .waiting(until: now), countsAttempt: false, error: nil)
            return
        }
        if failure.isPermanent {
            pass.window.answer(answer.sequence, becomes: .waiting(until: now), countsAttempt: true, error: failure.reason)
            guard !pass.disabled else { return }
            pass.disabled = true
            let retry = DeliveryRetryState(
                sequence: answer.sequence, attempts: slot.attempts + 1, nextAttemptAt: now, lastError: failure.reason, disabled: true)
            _ = write { () throws(StoreError) in try journal.setRetryState(retry, for: name) }
            pass.written = retry
            reportError(stopped(by: failure))
            return
        }
        if let early = slot.early {
            pass.window.answer(answer.sequence, becomes: .waiting(until: early), countsAttempt: false, error: failure.reason)
            if !pass.window.failsBefore(answer.sequence), state.withLock({ $0.reported.insert(answer.sequence).inserted }) {
                reportError(notDelivered(answer.sequence, failure: failure, attempt: slot.attempts, nextIn: max(0, early - now)))
            }
            return
        }
        let attempt = slot.attempts + 1
        let delay = schedule.delay(afterFailedAttempt: attempt, retryAfter: failure.retryAfter)
        if let retryAfter = failure.retryAfter {
            // The endpoint's rate limit: nothing more goes to it until then.
            let wait = delay ?? min(max(0, retryAfter), RetrySchedule.longestRetryAfter)
            pass.window.pausedUntil = max(pass.window.pausedUntil, now + wait)
        }
        if let delay {
            pass.window.answer(answer.sequence, becomes: .waiting(until: now + delay), countsAttempt: true, error: failure.reason)
            // One line per failing stretch: for the oldest failing event, not each after it.
            if !pass.window.failsBefore(answer.sequence), state.withLock({ $0.reported.insert(answer.sequence).inserted }) {
                reportError(notDelivered(answer.sequence, failure: failure, attempt: attempt, nextIn: delay))
            }
            return
        }
        let letter = DeadLetter(
            subscriber: name, sequence: answer.sequence, eventID: envelope.id, attempts: attempt, lastError: failure.reason,
            recordedAt: now)
        guard write({ () throws(StoreError) in try journal.recordDeadLetter(letter) }) else {
            // Not recorded: tried again in a second, the attempt not counted.
            pass.window.answer(answer.sequence, becomes: .waiting(until: now + 1), countsAttempt: false, error: failure.reason)
            return
        }
        tally.deadLettered += 1
        pass.window.answer(answer.sequence, becomes: .done, countsAttempt: true, error: failure.reason)
        acknowledgingJournal?.acknowledge(answer.sequence, for: name)
        reportError(gaveUp(on: envelope, attempts: attempt, failure: failure))
    }

    /// Keeps the journal's retry state on the oldest event not done: its attempts and
    /// next attempt while it fails, none once it is delivered, so the schedule of the
    /// event the cursor waits at holds across processes.
    private func keepRetryState(_ pass: inout WindowPass, now: Double) {
        let wanted: DeliveryRetryState?
        if let head = pass.window.failingHead {
            switch head.standing {
            case .waiting(let until):
                wanted = DeliveryRetryState(sequence: head.sequence, attempts: head.attempts, nextAttemptAt: until, lastError: head.lastError)
            default:
                // In flight again: the state written for it stands until its answer.
                guard pass.written?.sequence != head.sequence else { return }
                wanted = DeliveryRetryState(sequence: head.sequence, attempts: head.attempts, nextAttemptAt: now, lastError: head.lastError)
            }
        } else {
            wanted = nil
        }
        guard wanted != pass.written else { return }
        if write({ () throws(StoreError) in try journal.setRetryState(wanted, for: name) }) { pass.written = wanted }
    }

    /// The sequences after `cursor` recorded as this subscriber's dead letters: given
    /// up on by a window that a crash ended before the cursor passed them. A journal
    /// that acknowledges each event never offers them again, and is not asked.
    private func deadLetterSequences(after cursor: Int64) -> Set<Int64> {
        guard acknowledgingJournal == nil, let letters = try? journal.deadLetters(for: name) else { return [] }
        return Set(letters.lazy.map(\.sequence).filter { $0 > cursor })
    }

    /// Records an unreadable row as a dead letter (`deadLetterUnreadable` without moving
    /// the cursor: the window moves it over the prefix). Returns whether it was recorded.
    private func recordUnreadable(_ row: UnreadableEvent) -> Bool {
        let reason = "the journal row cannot be read: \(row.reason)"
        let letter = DeadLetter(
            subscriber: name, sequence: row.sequence, eventID: row.eventID ?? EventID(high: 0, low: 0), attempts: 0,
            lastError: reason, recordedAt: Date().timeIntervalSince1970)
        guard write({ () throws(StoreError) in try journal.recordDeadLetter(letter) }) else { return false }
        progress { $0.statistics.deadLettered += 1 }
        reportError(Self.unreadableSkipped(row, reason: reason))
        return true
    }
}
