import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import JuiceTestSupport
import Locking
import Testing

/// A destination that records what it was handed and when it was stopped.
private final class RecordingDestination: DurableDestination {
    private struct Record {
        var delivered: [EventID] = []
        var stops = 0
        var deliveredAfterStop = false
    }
    private let record = Locked(Record())

    var delivered: [EventID] { record.withLock { $0.delivered } }
    var stops: Int { record.withLock { $0.stops } }
    var deliveredAfterStop: Bool { record.withLock { $0.deliveredAfterStop } }

    private let tasks = DeliveryTasks()
    var intake: DeliveryIntake { .window(1) }

    /// Each event in a task of its own, as an async destination delivers.
    func send(_ offer: DeliveryOffer) {
        tasks.run(offer) { [record] envelope async throws(DeliveryFailure) in
            record.withLock { record in
                if record.stops > 0 { record.deliveredAfterStop = true }
                record.delivered.append(envelope.id)
            }
        }
    }

    func cancelSends() { tasks.cancel() }

    func stop(deadline: ContinuousClock.Instant) async {
        record.withLock { $0.stops += 1 }
    }
}

/// The attach-once / deliver / shutdown life the durable plugins share.
@Suite(.tags(.unit)) struct DurablePluginLifecycleTests {
    private func lifecycle(_ rig: Rig, kinds: Set<EventKind>? = nil) -> DurablePluginLifecycle {
        DurablePluginLifecycle(name: rig.name, kinds: kinds, schedule: RetrySchedule(delays: [0.01]))
    }

    @Test func onlyTheFirstAttachStartsAndEveryEventArrivesOnceInOrder() async throws {
        let rig = Rig.delivery()
        try rig.maker.make(.banana)  // pending before the attach: goes out at once
        let lifecycle = lifecycle(rig)
        let made = Locked(0)
        let warning = PluginMessage(english: "careful", korean: "조심")
        for _ in 0..<3 {
            try lifecycle.attach(to: rig.host, warnings: [warning]) { _ in
                made.withLock { $0 += 1 }
                return RecordingDestination()
            }
        }
        #expect(made.withLock { $0 } == 1)
        #expect(rig.errors.all == ["careful"])
        try rig.maker.make(.mangoKiwi)
        try rig.maker.add(3, of: .kiwi)
        let delivery = try #require(lifecycle.delivery)
        #expect(await delivery.deliverPending() == .caughtUp)
        await lifecycle.shutdown(deadline: generousDeadline())
        let destination = try #require(lifecycle.destination as? RecordingDestination)
        #expect(destination.delivered == (try rig.journal().map(\.id)))
        #expect(destination.stops == 1)
        #expect(!destination.deliveredAfterStop)
        #expect(try rig.store.cursor(named: rig.name) == (try rig.store.lastSequence()))
    }

    @Test func aFailedAttachIsNotTriedAgain() throws {
        let rig = Rig.delivery()
        let lifecycle = lifecycle(rig)
        let refusal = PluginError.failed(PluginMessage(untranslated: "no"))
        #expect(throws: refusal) {
            try lifecycle.attach(to: rig.host) { _ throws(PluginError) -> RecordingDestination in throw refusal }
        }
        try lifecycle.attach(to: rig.host) { _ in
            Issue.record("attached a second time")
            return RecordingDestination()
        }
        #expect(lifecycle.delivery == nil)
    }

    @Test func shutdownBeforeAttachDoesNothingAndShutdownMayRepeat() async throws {
        let rig = Rig.delivery()
        let lifecycle = lifecycle(rig, kinds: [.juiceMade])
        await lifecycle.shutdown(deadline: generousDeadline())
        #expect(lifecycle.destination == nil)
        try lifecycle.attach(to: rig.host) { _ in RecordingDestination() }
        await lifecycle.shutdown(deadline: generousDeadline())
        // No wake-up after shutdown: an event made now waits in the journal.
        try rig.maker.make(.banana)
        await lifecycle.shutdown(deadline: generousDeadline())
        let destination = try #require(lifecycle.destination as? RecordingDestination)
        #expect(destination.delivered.isEmpty)
        #expect(try rig.store.cursor(named: rig.name) == 0)
    }
}
