#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking

/// What the runner does when a destination refuses an event (see `DurableDelivery`).
extension DurableDelivery {
    /// Records a failed attempt: the next attempt on the schedule, a stopped
    /// subscriber (a permanent refusal) or, after the last attempt, a dead letter.
    /// An attempt made before its time (`early`, asked for by `juice deliver`) does
    /// not count against the schedule: repeated runs while an endpoint is down must
    /// not use up its retries in seconds.
    ///
    /// An attempt that shutdown cancelled (the flush deadline came first) is not a
    /// failure of the destination: nothing is recorded and no attempt counts; it is
    /// handed over to the next run, which sends the event first, and the message says so.
    func recordFailure(of envelope: EventEnvelope, attempt: Int, failure: DeliveryFailure, early: DeliveryRetryState?) {
        if isStopping {
            // `shutdown` said so (`handedOver`) when it cancelled the attempt.
            state.withLock { $0.statistics.failed += 1 }
            return
        }
        let now = Date().timeIntervalSince1970
        let firstReport = update { state in
            state.statistics.failed += 1
            return state.reported.insert(envelope.sequence).inserted
        }
        if let early, !failure.isPermanent {
            var kept = early
            kept.lastError = failure.reason
            _ = write { () throws(StoreError) in try journal.setRetryState(kept, for: name) }
            if firstReport {
                // The person who ran `juice deliver` learns why, even when another
                // process (a background run) made the attempts on the schedule.
                let next = RetrySchedule.message(seconds: max(0, early.nextAttemptAt - now))
                reportError(
                    PluginMessage(
                        english:
                            "event \(envelope.sequence) not delivered (\(failure.message.english)); the next scheduled attempt (\(early.attempts + 1) of \(schedule.maximumAttempts)) is in \(next.english); it waits in the journal",
                        korean:
                            "이벤트 \(envelope.sequence)을(를) 전달하지 못했습니다(\(failure.message.korean)). 예정된 다음 시도(\(schedule.maximumAttempts)번 중 \(early.attempts + 1)번째)는 \(next.korean) 뒤입니다. 이벤트는 저널에서 기다립니다"
                    ))
            }
        } else if failure.isPermanent {
            let retry = DeliveryRetryState(
                sequence: envelope.sequence, attempts: attempt, nextAttemptAt: now, lastError: failure.reason, disabled: true)
            _ = write { () throws(StoreError) in try journal.setRetryState(retry, for: name) }
            reportError(stopped(by: failure))
        } else if let delay = schedule.delay(afterFailedAttempt: attempt, retryAfter: failure.retryAfter) {
            let retry = DeliveryRetryState(
                sequence: envelope.sequence, attempts: attempt, nextAttemptAt: now + delay, lastError: failure.reason)
            _ = write { () throws(StoreError) in try journal.setRetryState(retry, for: name) }
            if firstReport { reportError(notDelivered(envelope.sequence, failure: failure, attempt: attempt, nextIn: delay)) }
        } else {
            let letter = DeadLetter(
                subscriber: name, sequence: envelope.sequence, eventID: envelope.id, attempts: attempt,
                lastError: failure.reason, recordedAt: now)
            let recorded = write { () throws(StoreError) in
                try journal.recordDeadLetter(letter)
                try journal.setRetryState(nil, for: name)
            }
            guard recorded else { return }
            update {
                $0.handledUpTo = envelope.sequence; $0.statistics.deadLettered += 1
            }
            persistCursor()
            reportError(gaveUp(on: envelope, attempts: attempt, failure: failure))
        }
    }

    /// The line for a destination's permanent refusal: delivery stops until `retry`.
    func stopped(by failure: DeliveryFailure) -> PluginMessage {
        PluginMessage(
            english:
                "\(failure.message.english); delivery is stopped and events wait in the journal; `juice subscribers retry \(ShellWord.quoted(name))` resumes it",
            korean: "\(failure.message.korean). 전달을 멈췄고 이벤트는 저널에서 기다립니다. `juice subscribers retry \(ShellWord.quoted(name))`로 다시 시작하세요")
    }

    /// The line for an event's first failed attempt on the schedule.
    func notDelivered(_ sequence: Int64, failure: DeliveryFailure, attempt: Int, nextIn delay: Double) -> PluginMessage {
        let next = RetrySchedule.message(seconds: delay)
        return PluginMessage(
            english:
                "event \(sequence) not delivered (\(failure.message.english)); attempt \(attempt) of \(schedule.maximumAttempts), next in \(next.english); it waits in the journal",
            korean:
                "이벤트 \(sequence)을(를) 전달하지 못했습니다(\(failure.message.korean)). \(schedule.maximumAttempts)번 중 \(attempt)번째 시도였고 \(next.korean) 뒤에 다시 시도합니다. 이벤트는 저널에서 기다립니다"
        )
    }

    /// The line for an event given up on, now a dead letter.
    func gaveUp(on envelope: EventEnvelope, attempts: Int, failure: DeliveryFailure) -> PluginMessage {
        PluginMessage(
            english:
                "gave up on event \(envelope.sequence) (id \(envelope.id)) after \(EnglishCount.of(attempts, "attempt")): \(failure.message.english); `juice subscribers retry \(ShellWord.quoted(name)) --dead-letters` sends it again",
            korean:
                "이벤트 \(envelope.sequence)(id \(envelope.id))을(를) \(attempts)번 시도한 뒤 포기했습니다: \(failure.message.korean). `juice subscribers retry \(ShellWord.quoted(name)) --dead-letters`로 다시 보내세요"
        )
    }

    /// What shutdown says when it cancels the attempts under way (sequences in order).
    static func handedOver(_ sequences: [Int64]) -> PluginMessage {
        let shown = sequences.prefix(5).map(String.init).joined(separator: ", ") + (sequences.count > 5 ? ", …" : "")
        let english =
            sequences.count == 1
            ? "event \(shown) was still being delivered when juice had to exit (flushDeadlineSeconds); handed over to the next run: it waits in the journal and the next juice command or `juice deliver` sends it again"
            : "\(sequences.count) events (\(shown)) were still being delivered when juice had to exit (flushDeadlineSeconds); handed over to the next run: they wait in the journal and the next juice command or `juice deliver` sends them again"
        let korean = sequences.count == 1 ? "이벤트 \(shown)" : "이벤트 \(sequences.count)개(\(shown))"
        return PluginMessage(
            english: english,
            korean:
                "juice가 끝나야 할 때(flushDeadlineSeconds) \(korean)을(를) 아직 전달하는 중이었습니다. 다음 실행에 넘깁니다: 이벤트는 저널에서 기다리고, 다음 juice 명령이나 `juice deliver`가 다시 보냅니다"
        )
    }

    /// A journal row that cannot be read (damaged JSON, a type from a newer `juice`)
    /// is not offered to the destination: it becomes a dead letter at once, with the
    /// reason, and the cursor moves past it, so it never holds up the events after it.
    /// Returns whether it was recorded (a store that refuses leaves it for later).
    func deadLetterUnreadable(_ row: UnreadableEvent, retry: DeliveryRetryState?) -> Bool {
        let reason = "the journal row cannot be read: \(row.reason)"
        // A row whose id column is damaged too is kept under the nil UUID.
        let letter = DeadLetter(
            subscriber: name, sequence: row.sequence, eventID: row.eventID ?? EventID(high: 0, low: 0), attempts: 0,
            lastError: reason, recordedAt: Date().timeIntervalSince1970)
        let recorded = write { () throws(StoreError) in
            try journal.recordDeadLetter(letter)
            if retry?.sequence == row.sequence { try journal.setRetryState(nil, for: name) }
        }
        guard recorded else { return false }
        state.withLock {
            $0.handledUpTo = row.sequence; $0.statistics.deadLettered += 1
        }
        persistCursor()
        reportError(Self.unreadableSkipped(row, reason: reason))
        return true
    }

    /// The line for an unreadable row kept as a dead letter.
    static func unreadableSkipped(_ row: UnreadableEvent, reason: String) -> PluginMessage {
        PluginMessage(
            english: "skipped event \(row.sequence): \(reason); kept as a dead letter (`juice subscribers` shows it), the events after it go on",
            korean: "이벤트 \(row.sequence)을(를) 건너뛰었습니다: 저널 항목을 읽을 수 없습니다(\(row.reason)). 데드 레터로 남기고(`juice subscribers`에서 보임) 다음 이벤트를 계속 전달합니다")
    }

    /// Sends each dead letter once more; those delivered are removed. One whose row
    /// still cannot be read stays, and says so.
    func redeliverDeadLetters() {
        guard let letters = try? journal.deadLetters(for: name) else { return }
        for letter in letters where !isStopping {
            guard let entry = try? journal.entries(after: letter.sequence - 1, limit: 1).first,
                entry.sequence == letter.sequence
            else { continue }
            guard case .event(let envelope) = entry else {
                if case .unreadable(let row) = entry {
                    update { $0.statistics.failed += 1 }
                    reportError(Self.stillUnreadable(letter, reason: row.reason))
                }
                continue
            }
            update { $0.statistics.attempts += 1 }
            if let failure = attempt(envelope) {
                update { $0.statistics.failed += 1 }
                reportError(Self.stillNotDelivered(letter, failure: failure))
                continue
            }
            update { $0.statistics.redelivered += 1 }
            _ = write { () throws(StoreError) in try journal.removeDeadLetters(for: name, sequences: [letter.sequence]) }
        }
    }

    /// The line for a dead letter whose row still cannot be read.
    static func stillUnreadable(_ letter: DeadLetter, reason: String) -> PluginMessage {
        PluginMessage(
            english: "dead letter \(letter.sequence) still cannot be read (\(reason)); it stays a dead letter",
            korean: "데드 레터 \(letter.sequence)은(는) 여전히 읽을 수 없어(\(reason)) 데드 레터로 남습니다")
    }

    /// The line for a dead letter that failed once more.
    static func stillNotDelivered(_ letter: DeadLetter, failure: DeliveryFailure) -> PluginMessage {
        PluginMessage(
            english: "dead letter \(letter.sequence) still not delivered: \(failure.message.english)",
            korean: "배달 못 한 이벤트 \(letter.sequence)을(를) 여전히 전달하지 못했습니다: \(failure.message.korean)")
    }
}
