import JuiceMakerCore
import JuiceMakerPluginKit
import Locking
import JuiceTestSupport
import Testing

/// A blocking destination that writes the cursor every 4 events, refuses one event, and
/// notes, at each offer, the cursor in the journal and what the runner said comes next.
private final class BatchingDestination: BlockingDurableDestination {
    struct Offer: Equatable {
        let sequence: Int64
        let cursor: Int64
        let upcoming: [Int64]
    }

    let journal: any EventJournal
    let refused: Int64
    private let offers = Locked<[Offer]>([])
    var seen: [Offer] { offers.withLock { $0 } }
    var cursorBatch: Int { 4 }

    init(journal: any EventJournal, refusing refused: Int64) {
        self.journal = journal
        self.refused = refused
    }

    func deliverBlocking(_ envelope: EventEnvelope, upcoming: ArraySlice<EventEnvelope>) throws(DeliveryFailure) {
        let cursor = (try? journal.cursor(named: "batched")) ?? -1
        offers.withLock { $0.append(Offer(sequence: envelope.sequence, cursor: cursor, upcoming: upcoming.map(\.sequence))) }
        if envelope.sequence == refused { throw DeliveryFailure(PluginMessage(untranslated: "refused")) }
    }

    func deliver(_ envelope: EventEnvelope) async throws(DeliveryFailure) {
        Issue.record("a blocking destination is offered events on the runner's thread")
    }
}

@Suite("The cursor written per batch")
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
        #expect(offers.last?.upcoming == [8])
    }

    @Test("over many batches, read ahead on a thread of its own: every event offered once, in order, with the events after it never running dry")
    func readAheadKeepsOrderAcrossBatches() async throws {
        let rig = Rig(stock: Stock(repeating: 5_000))
        for _ in 0..<700 { _ = try rig.maker.make(.banana) }  // 1,400 events: more than five batches
        let last = try rig.store.lastSequence()
        #expect(last == 1_400)
        let destination = BatchingDestination(journal: rig.store, refusing: -1)
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
            #expect(offer.upcoming.count >= min(left, DurableDelivery.batchSize / 2 - 1), "at \(offer.sequence): \(offer.upcoming.count) ahead")
        }
        #expect(try rig.store.cursor(named: "batched") == last)
        #expect(rig.errors.all.isEmpty)
    }
}
