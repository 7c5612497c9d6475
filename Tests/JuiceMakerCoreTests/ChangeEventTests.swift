import JuiceMakerTesting
import JuiceTestSupport
import Testing
@testable import JuiceMakerCore

@Suite("Events of each change", .tags(.unit))
struct ChangeEventTests {
    /// The journal entries one call added, checked for one shared change id and
    /// contiguous sequences following `previous`.
    private func newEvents(_ fixture: Fixture, after previous: Int64) throws -> [EventEnvelope] {
        let events = try fixture.store.events(after: previous, limit: Int.max)
        #expect(events.map(\.sequence) == Array(previous + 1..<previous + 1 + Int64(events.count)))
        #expect(Set(events.map(\.changeID)).count <= 1, "one change, one change id")
        return events
    }

    @Test("an order: juiceMade, then one stockChanged(order) per fruit used, one change id")
    func orderEvents() throws {
        let fixture = try Fixture()
        try fixture.maker.make(.mangoKiwi, count: 2)
        let events = try newEvents(fixture, after: 0)
        #expect(
            events.map(\.event) == [
                .juiceMade(juice: .mangoKiwi, count: 2, consumed: FruitAmounts(kiwi: 2, mango: 4)),
                .stockChanged(fruit: .kiwi, from: 10, to: 8, reason: .order),
                .stockChanged(fruit: .mango, from: 10, to: 6, reason: .order),
            ])
        #expect(events.allSatisfy { $0.source == EventEnvelope.defaultSource })
        #expect(events.allSatisfy { $0.id != $0.changeID })
    }

    @Test("a failed order: one orderFailed with the shortages")
    func failedOrderEvents() throws {
        let fixture = try Fixture()
        try fixture.maker.make(.strawberry)
        let events = try newEvents(fixture, after: 0)
        #expect(events.map(\.event) == [.orderFailed(juice: .strawberry, count: 1, shortages: FruitAmounts(strawberry: 6))])
    }

    @Test("restock, remove, set and draft: one stockChanged per fruit that changed, with the right reason")
    func editEvents() throws {
        let fixture = try Fixture()
        try fixture.maker.add(5, of: .kiwi)
        #expect(
            try newEvents(fixture, after: 0).map(\.event) == [
                .stockChanged(fruit: .kiwi, from: 10, to: 15, reason: .restock)
            ])
        try fixture.maker.remove(3, of: .banana)
        #expect(
            try newEvents(fixture, after: 1).map(\.event) == [
                .stockChanged(fruit: .banana, from: 10, to: 7, reason: .edit)
            ])
        // Pineapple is set to what it already holds: no event for it.
        try fixture.maker.set([.strawberry: 0, .pineapple: 10, .mango: 30])
        #expect(
            try newEvents(fixture, after: 2).map(\.event) == [
                .stockChanged(fruit: .strawberry, from: 10, to: 0, reason: .edit),
                .stockChanged(fruit: .mango, from: 10, to: 30, reason: .edit),
            ])
        var draft = try fixture.maker.beginEdit()
        try draft.add(1, of: .banana)
        try draft.remove(15, of: .kiwi)
        try draft.add(1, of: .pineapple)
        try draft.remove(1, of: .pineapple)
        try fixture.maker.apply(draft)
        #expect(
            try newEvents(fixture, after: 4).map(\.event) == [
                .stockChanged(fruit: .banana, from: 7, to: 8, reason: .edit),
                .stockChanged(fruit: .kiwi, from: 15, to: 0, reason: .edit),
            ])
    }

    @Test("a change that changes nothing journals nothing")
    func noOpChange() throws {
        let fixture = try Fixture()
        try fixture.maker.set([.kiwi: 10])
        try fixture.maker.apply(try fixture.maker.beginEdit())
        #expect(try fixture.journal.isEmpty)
        #expect(fixture.recorder.count == 0)
    }

    @Test("events reach the bus in journal order, each once, before the call returns")
    func busFollowsJournal() throws {
        let fixture = try Fixture()
        let queued = try RecordingSubscriber("queued", subscribingTo: fixture.maker, delivery: .queued())
        let failures = try RecordingSubscriber("failures", subscribingTo: fixture.maker, kinds: [.orderFailed])
        try fixture.maker.make(.mangoKiwi)
        #expect(fixture.recorder.count == 3)
        try fixture.maker.make(.strawberry)
        #expect(fixture.recorder.count == 4)
        try fixture.maker.add(6, of: .strawberry)
        try fixture.maker.make(.strawberry)
        try fixture.maker.set([.banana: 1, .kiwi: 2])
        let journal = try fixture.journal
        #expect(journal.map(\.sequence) == Array(1...Int64(journal.count)))
        #expect(fixture.recorder.events == journal)
        #expect(queued.waitUntil(count: journal.count, timeout: .seconds(30)))
        #expect(queued.events == journal)
        #expect(failures.events == journal.filter { $0.event.kind == .orderFailed })
        #expect(failures.count == 1)
        // Ids are unique and increase in journal order.
        #expect(zip(journal, journal.dropFirst()).allSatisfy { $0.id < $1.id })
        // Changes are told apart by their change id.
        #expect(Set(journal.map(\.changeID)).count == 5)
    }

    @Test("the recorder stops at cancel and its bounded wait gives up")
    func recorderCancel() throws {
        let fixture = try Fixture()
        try fixture.maker.make(.kiwi)
        fixture.recorder.cancel()
        try fixture.maker.make(.kiwi)
        // Delivery is synchronous: the count after `make` returned is the proof that
        // nothing came after cancel. The bounded wait's timeout is what is tested next.
        #expect(fixture.recorder.count == 2)
        #expect(fixture.recorder.waitUntil(count: 3, timeout: .milliseconds(100)) == false)
        #expect(fixture.recorder.waitUntil(count: 2, timeout: .zero))
    }
}
