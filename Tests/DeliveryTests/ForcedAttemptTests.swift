import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import JuiceTestSupport
import Testing
import Locking

/// A destination that refuses every event and counts the attempts.
private final class RefusingDestination: DurableDestination {
    private let count = Locked(0)
    var attempts: Int { count.withLock { $0 } }

    var intake: DeliveryIntake { .window(1) }

    func send(_ offer: DeliveryOffer) {
        for position in offer.events.indices.map({ $0 - offer.events.startIndex }) {
            count.withLock { $0 += 1 }
            offer.answer(position, .retry(PluginMessage(untranslated: "connection refused")))
        }
    }

    func cancelSends() {}

    func stop(deadline: ContinuousClock.Instant) async {}
}

@Suite("Attempts asked for before their time", .tags(.unit))
struct ForcedAttemptTests {
    @Test("repeated `juice deliver` runs while the endpoint is down keep the schedule: no attempt is used up, no dead letter")
    func forcedEarlyAttemptsDoNotUseUpTheSchedule() async throws {
        let rig = Rig.delivery()
        let destination = RefusingDestination()
        // Two attempts in all, an hour apart: a forced run must not count as the second.
        let schedule = RetrySchedule(delays: [3600])
        try rig.maker.make(.banana)

        let first = DurableDelivery(
            name: "hook", journal: rig.store, schedule: schedule, destination: destination,
            reportError: { rig.errors.report($0) })
        _ = await first.deliverPending()
        await first.shutdown(deadline: generousDeadline())
        let scheduled = try #require(try rig.store.retryState(for: "hook"))
        #expect(scheduled.attempts == 1)

        for _ in 0..<5 {
            let run = DurableDelivery(
                name: "hook", journal: rig.store, schedule: schedule, destination: destination,
                reportError: { rig.errors.report($0) })
            let phase = await run.deliverPending()
            await run.shutdown(deadline: generousDeadline())
            guard case .waitingForRetry(let until) = phase else {
                Issue.record("expected waitingForRetry, found \(phase)")
                return
            }
            #expect(until == scheduled.nextAttemptAt)
        }

        // Each run really tried (a person asked), yet the schedule stands.
        #expect(destination.attempts == 6)
        let after = try #require(try rig.store.retryState(for: "hook"))
        #expect(after.attempts == 1)
        #expect(after.nextAttemptAt == scheduled.nextAttemptAt)
        #expect(try rig.store.deadLetters(for: nil).isEmpty)
        #expect(try rig.store.cursor(named: "hook") == 0)
    }
}

/// A destination that takes every event and keeps the sequences it was handed.
private final class TakingDestination: DurableDestination {
    private let taken = Locked<[Int64]>([])
    var sequences: [Int64] { taken.withLock { $0 } }

    var intake: DeliveryIntake { .window(1) }

    func send(_ offer: DeliveryOffer) {
        for (position, event) in zip(0..., offer.events) {
            taken.withLock { $0.append(event.envelope.sequence) }
            offer.answer(position, .accepted)
        }
    }

    func cancelSends() {}

    func stop(deadline: ContinuousClock.Instant) async {}
}

@Suite("Dead letters sent again on request", .tags(.unit))
struct DeadLetterRetryTests {
    /// `retry --dead-letters` asked while the runner's first pass is under way: the pass
    /// must not answer the request as caught up before the letters went out (it once did,
    /// in a window pass that took the request's count as served). Many runners, each
    /// asked at once after it started, so the request lands at every point of a pass.
    @Test func aRetryOfDeadLettersSendsThemBeforeItAnswers() async throws {
        let rig = Rig.delivery()
        try rig.maker.make(.banana)
        let last = try rig.store.lastSequence()
        let letter = try #require(try rig.store.events(after: 0, limit: 1).first)
        try rig.store.setCursor(named: "hook", to: last)
        for round in 0..<1000 {
            try rig.store.recordDeadLetter(
                DeadLetter(
                    subscriber: "hook", sequence: letter.sequence, eventID: letter.id, attempts: 1, lastError: "x", recordedAt: 0))
            let destination = TakingDestination()
            let delivery = DurableDelivery(
                name: "hook", journal: rig.store, schedule: RetrySchedule(delays: [3600]), destination: destination,
                reportError: { rig.errors.report($0) })
            delivery.start()
            let phase = await delivery.retry(deadLetters: true)
            await delivery.shutdown(deadline: generousDeadline())
            #expect(phase == .caughtUp, "round \(round)")
            #expect(destination.sequences == [letter.sequence], "round \(round): the letter was sent before the answer")
            #expect(try rig.store.deadLetters(for: "hook").isEmpty, "round \(round)")
            if destination.sequences != [letter.sequence] { break }
        }
    }
}
