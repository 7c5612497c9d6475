import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking
import JuiceTestSupport
import Testing

/// A pipelined destination that writes the cursor every 4 events, refuses one event, and
/// notes, at each offer, the cursor in the journal and what the runner said comes next.
private final class BatchingDestination: DurableDestination {
    struct Offer: Equatable {
        let sequence: Int64
        let cursor: Int64
        let upcoming: [Int64]
        /// Whether it came with its JSON as committed.
        var withText = true
    }

    let journal: any EventJournal
    let refused: Int64
    private let offers = Locked<[Offer]>([])
    var seen: [Offer] { offers.withLock { $0 } }
    let readBatch: Int
    var intake: DeliveryIntake { .pipelined(readBatch: readBatch, cursorBatch: 4) }

    init(journal: any EventJournal, refusing refused: Int64, readBatch: Int = DurableDelivery.batchSize) {
        self.journal = journal
        self.refused = refused
        self.readBatch = readBatch
    }

    /// Notes each event of the run as it comes to it, with what comes after it (the
    /// rest of the run, then the runner's `upcoming`).
    func send(_ offer: DeliveryOffer) {
        let (events, upcoming) = (offer.events, offer.upcoming)
        for (offset, event) in zip(1..., events) {
            let envelope = event.envelope
            let cursor = (try? journal.cursor(named: "batched")) ?? -1
            let after = events.dropFirst(offset).map(\.envelope.sequence) + upcoming.map(\.envelope.sequence)
            let withText = event.text == CloudEventFormat.encode(envelope)
            offers.withLock { $0.append(Offer(sequence: envelope.sequence, cursor: cursor, upcoming: after, withText: withText)) }
            if envelope.sequence == refused {
                offer.answer(offset - 1, .retry(PluginMessage(untranslated: "refused")))
                return
            }
            if !offer.answer(offset - 1, .accepted) { return }
        }
    }

    func cancelSends() {}

    func stop(deadline: ContinuousClock.Instant) async {}
}

@Suite("The cursor written per batch", .tags(.unit))
struct BatchedCursorTests {
    @Test("a destination with cursorBatch 4: the cursor is written every 4 accepted events, on a failure, and never past an event not accepted")
    func cursorMovesPerBatchAndNeverPastAnUnacceptedEvent() async throws {
        let rig = Rig()
        for _ in 0..<4 { try rig.maker.make(.banana) }  // 8 events: juice made, banana changed
        #expect(try rig.store.lastSequence() == 8)
        let destination = BatchingDestination(journal: rig.store, refusing: 7)
        let delivery = DurableDelivery(
            name: "batched", journal: rig.store, schedule: RetrySchedule(delays: [3600]), destination: destination,
            reportError: { rig.errors.report($0) })
        let phase = await delivery.deliverPending()
        await delivery.shutdown(deadline: generousDeadline())
        guard case .waitingForRetry = phase else {
            Issue.record("expected waitingForRetry, found \(phase)")
            return
        }
        let offers = destination.seen
        #expect(offers.map(\.sequence) == [1, 2, 3, 4, 5, 6, 7])
        // Written after the 4th accepted event, not before; the 5th and 6th wait for the next write.
        #expect(offers.map(\.cursor) == [0, 0, 0, 0, 4, 4, 4])
        // The refusal writes what was accepted, and nothing past it.
        #expect(try rig.store.cursor(named: "batched") == 6)
        #expect(try rig.store.retryState(for: "batched")?.sequence == 7)
        // What comes next is the rest of the runner's batch.
        #expect(offers.first?.upcoming == [2, 3, 4, 5, 6, 7, 8])
        // Each with its JSON as the journal committed it.
        #expect(offers.allSatisfy { $0.withText })
        #expect(offers.last?.upcoming == [8])
    }

    @Test(
        "over many batches, read ahead on a thread of its own: every event offered once, in order, with the events after it never running dry",
        arguments: [DurableDelivery.batchSize, 100, 1_024])
    func readAheadKeepsOrderAcrossBatches(readBatch: Int) async throws {
        let rig = Rig(stock: Stock(repeating: 5_000))
        for _ in 0..<700 { _ = try rig.maker.make(.banana) }  // 1,400 events: more than one batch of each size
        let last = try rig.store.lastSequence()
        #expect(last == 1_400)
        let destination = BatchingDestination(journal: rig.store, refusing: -1, readBatch: readBatch)
        let delivery = DurableDelivery(
            name: "batched", journal: rig.store, schedule: RetrySchedule(delays: [3600]), destination: destination,
            reportError: { rig.errors.report($0) })
        let phase = await delivery.deliverPending()
        await delivery.shutdown(deadline: generousDeadline())
        #expect(phase == .caughtUp)
        let offers = destination.seen
        // No gap, no repeat, journal order.
        #expect(offers.map(\.sequence) == Array(1...last))
        for offer in offers {
            // What comes next is the journal after it, with no gap...
            #expect(offer.upcoming == offer.upcoming.indices.map { offer.sequence + 1 + Int64($0) }, "at \(offer.sequence)")
            // ...and at least half a batch of it while the journal has that many left.
            let left = Int(last - offer.sequence)
            #expect(offer.upcoming.count >= min(left, readBatch / 2 - 1), "at \(offer.sequence): \(offer.upcoming.count) ahead")
        }
        #expect(try rig.store.cursor(named: "batched") == last)
        #expect(offers.allSatisfy { $0.withText }, "read ahead with the events")
        #expect(rig.errors.all.isEmpty)
    }

    @Test("with a kinds filter, runs offer only the kinds taken, the others are passed over, and the books add up")
    func kindsFilterInRuns() async throws {
        let rig = Rig(stock: Stock(repeating: 5_000))
        for _ in 0..<700 { _ = try rig.maker.make(.banana) }  // 1,400 events, juiceMade and stockChanged alternating
        let last = try rig.store.lastSequence()
        // Refuse the 600th juice made (sequence 1,199): everything before it is done with, nothing after.
        let destination = BatchingDestination(journal: rig.store, refusing: 1_199)
        let delivery = DurableDelivery(
            name: "batched", journal: rig.store, kinds: [.juiceMade], schedule: RetrySchedule(delays: [3600]),
            destination: destination, reportError: { rig.errors.report($0) })
        let phase = await delivery.deliverPending()
        await delivery.shutdown(deadline: generousDeadline())
        guard case .waitingForRetry = phase else {
            Issue.record("expected waitingForRetry, found \(phase)")
            return
        }
        let offered = destination.seen.map(\.sequence)
        // Only juices made (odd sequences), each once, in order, up to the refused one.
        #expect(offered == Array(stride(from: 1, through: 1_199, by: 2)))
        #expect(try rig.store.cursor(named: "batched") == 1_198)
        #expect(try rig.store.retryState(for: "batched")?.sequence == 1_199)
        let statistics = delivery.statistics
        #expect(statistics.delivered == 599)
        #expect(statistics.skipped == 599, "the stock changes before the refused event")
        #expect(statistics.attempts == 600)
        #expect(statistics.failed == 1)
        #expect(last == 1_400)
    }
}
