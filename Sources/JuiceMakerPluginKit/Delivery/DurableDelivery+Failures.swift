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
import JuiceMakerCore
import Locking

/// What the runner does when a destination refuses an event (see `DurableDelivery`).
extension DurableDelivery {
    /// Records a failed attempt: the next attempt on the schedule, a stopped
    /// subscriber (a permanent refusal) or, after the last attempt, a dead letter.
    /// An attempt made before its time (`early`, asked for by `juice deliver`) does
    /// not count against the schedule: repeated runs while an endpoint is down must
    /// not use up its retries in seconds.
    func recordFailure(of envelope: EventEnvelope, attempt: Int, failure: DeliveryFailure, early: DeliveryRetryState?) {
        let now = Date().timeIntervalSince1970
        let firstReport = update { state in
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
            reportError(PluginMessage(
                english: "\(failure.message.english); delivery is stopped and events wait in the journal; `juice subscribers retry \(name)` resumes it",
                korean: "\(failure.message.korean). 전달을 멈췄고 이벤트는 저널에서 기다립니다. `juice subscribers retry \(name)`로 다시 시작하세요"))
        } else if let delay = schedule.delay(afterFailedAttempt: attempt, retryAfter: failure.retryAfter) {
            let retry = DeliveryRetryState(
                sequence: envelope.sequence, attempts: attempt, nextAttemptAt: now + delay, lastError: failure.reason)
            _ = write { () throws(StoreError) in try journal.setRetryState(retry, for: name) }
            if firstReport {
                let next = RetrySchedule.message(seconds: delay)
                reportError(PluginMessage(
                    english: "event \(envelope.sequence) not delivered (\(failure.message.english)); attempt \(attempt) of \(schedule.maximumAttempts), next in \(next.english); it waits in the journal",
                    korean: "이벤트 \(envelope.sequence)을(를) 전달하지 못했습니다(\(failure.message.korean)). \(schedule.maximumAttempts)번 중 \(attempt)번째 시도였고 \(next.korean) 뒤에 다시 시도합니다. 이벤트는 저널에서 기다립니다"))
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
            update { $0.handledUpTo = envelope.sequence; $0.statistics.deadLettered += 1 }
            persistCursor()
            reportError(PluginMessage(
                english: "gave up on event \(envelope.sequence) (id \(envelope.id)) after \(attempt) attempt(s): \(failure.message.english); `juice subscribers retry \(name) --dead-letters` sends it again",
                korean: "이벤트 \(envelope.sequence)(id \(envelope.id))을(를) \(attempt)번 시도한 뒤 포기했습니다: \(failure.message.korean). `juice subscribers retry \(name) --dead-letters`로 다시 보내세요"))
        }
    }

    /// Sends each dead letter once more; those delivered are removed.
    func redeliverDeadLetters() {
        guard let letters = try? journal.deadLetters(for: name) else { return }
        for letter in letters where !isStopping {
            guard let envelope = try? journal.events(after: letter.sequence - 1, limit: 1).first,
                  envelope.sequence == letter.sequence else { continue }
            update { $0.statistics.attempts += 1 }
            if let failure = attempt(envelope) {
                update { $0.statistics.failed += 1 }
                reportError(PluginMessage(
                    english: "dead letter \(letter.sequence) still not delivered: \(failure.message.english)",
                    korean: "배달 못 한 이벤트 \(letter.sequence)을(를) 여전히 전달하지 못했습니다: \(failure.message.korean)"))
                continue
            }
            update { $0.statistics.redelivered += 1 }
            _ = write { () throws(StoreError) in try journal.removeDeadLetters(for: name, sequences: [letter.sequence]) }
        }
    }
}
