import Foundation

/// What the runner does when a destination refuses an event (see `DurableDelivery`).
extension DurableDelivery {
    /// Records a failed attempt: the next attempt on the schedule, a stopped
    /// subscriber (a permanent refusal) or, after the last attempt, a dead letter.
    /// An attempt made before its time (`early`, asked for by `juice deliver`) does
    /// not count against the schedule: repeated runs while an endpoint is down must
    /// not use up its retries in seconds.
    func recordFailure(of envelope: EventEnvelope, attempt: Int, failure: DeliveryFailure, early: DeliveryRetryState?) {
        let now = Date().timeIntervalSince1970
        let firstReport = state.withLock { state in
            state.statistics.failed += 1
            return state.reported.insert(envelope.sequence).inserted
        }
        if let early, !failure.isPermanent {
            var kept = early
            kept.lastError = failure.reason
            _ = write { () throws(StoreError) in try journal.setRetryState(kept, for: name) }
        } else if failure.isPermanent {
            let retry = DeliveryRetryState(
                sequence: envelope.sequence, attempts: attempt, nextAttemptAt: now, lastError: failure.reason, disabled: true)
            _ = write { () throws(StoreError) in try journal.setRetryState(retry, for: name) }
            reportError("\(failure.reason); delivery is stopped and events wait in the journal; `juice subscribers retry \(name)` resumes it")
        } else if let delay = schedule.delay(afterFailedAttempt: attempt, retryAfter: failure.retryAfter) {
            let retry = DeliveryRetryState(
                sequence: envelope.sequence, attempts: attempt, nextAttemptAt: now + delay, lastError: failure.reason)
            _ = write { () throws(StoreError) in try journal.setRetryState(retry, for: name) }
            if firstReport {
                reportError("event \(envelope.sequence) not delivered (\(failure.reason)); attempt \(attempt) of \(schedule.maximumAttempts), next in \(RetrySchedule.describe(seconds: delay)); it waits in the journal")
            }
        } else {
            let letter = DeadLetter(
                subscriber: name, sequence: envelope.sequence, eventID: envelope.id, attempts: attempt,
                lastError: failure.reason, recordedAt: now)
            let recorded = write { () throws(StoreError) in
                try journal.recordDeadLetter(letter)
                try journal.setRetryState(nil, for: name)
            }
            guard recorded else { return }
            state.withLock { $0.handledUpTo = envelope.sequence; $0.statistics.deadLettered += 1 }
            persistCursor()
            reportError("gave up on event \(envelope.sequence) (id \(envelope.id)) after \(attempt) attempt(s): \(failure.reason); `juice subscribers retry \(name) --dead-letters` sends it again")
        }
    }

    /// Sends each dead letter once more; those delivered are removed.
    func redeliverDeadLetters() {
        guard let letters = try? journal.deadLetters(for: name) else { return }
        for letter in letters where !isStopping {
            guard let envelope = try? journal.events(after: letter.sequence - 1, limit: 1).first,
                  envelope.sequence == letter.sequence else { continue }
            state.withLock { $0.statistics.attempts += 1 }
            if let failure = attempt(envelope) {
                state.withLock { $0.statistics.failed += 1 }
                reportError("dead letter \(letter.sequence) still not delivered: \(failure.reason)")
                continue
            }
            state.withLock { $0.statistics.redelivered += 1 }
            _ = write { () throws(StoreError) in try journal.removeDeadLetters(for: name, sequences: [letter.sequence]) }
        }
    }
}
