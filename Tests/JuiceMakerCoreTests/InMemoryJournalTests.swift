import Foundation
import JuiceTestSupport
import Locking
import Testing
@testable import JuiceMakerCore

@Suite("In-memory journal", .tags(.unit))
struct InMemoryJournalTests {
    /// A store whose journal holds `sequence` 1…5.
    private func journalOfFive() throws -> (InMemoryStore, JuiceMaker) {
        let store = InMemoryStore()
        let maker = JuiceMaker(store: store)
        try maker.make(.mangoKiwi)
        try maker.make(.strawberry)
        try maker.add(1, of: .banana)
        try #require(try store.lastSequence() == 5)
        return (store, maker)
    }

    @Test("events(after:limit:) pages through the journal in order")
    func paging() throws {
        let (store, _) = try journalOfFive()
        #expect(try store.events(after: 0, limit: 100).map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(try store.events(after: 2, limit: 2).map(\.sequence) == [3, 4])
        #expect(try store.events(after: 4, limit: 10).map(\.sequence) == [5])
        #expect(try store.events(after: 5, limit: 10).isEmpty)
        #expect(try store.events(after: 99, limit: 10).isEmpty)
        #expect(try store.events(after: 0, limit: 0).isEmpty)
        #expect(try store.events(after: -3, limit: 2).map(\.sequence) == [1, 2])
        #expect(try store.events(after: 2, limit: Int.max).map(\.sequence) == [3, 4, 5])
        #expect(try InMemoryStore().lastSequence() == 0)
    }

    @Test("cursors start at 0 and only move forward")
    func cursors() throws {
        let store = InMemoryStore()
        #expect(try store.cursor(named: "webhook") == 0)
        try store.setCursor(named: "webhook", to: 5)
        try store.setCursor(named: "webhook", to: 3)
        #expect(try store.cursor(named: "webhook") == 5)
        try store.setCursor(named: "webhook", to: 8)
        try store.setCursor(named: "command", to: 2)
        #expect(try store.cursor(named: "webhook") == 8)
        #expect(try store.cursors() == ["webhook": 8, "command": 2])
    }

    @Test("dead letters are recorded, listed per subscriber or all, and removed")
    func deadLetters() throws {
        let store = InMemoryStore()
        var ids = EventIDGenerator()
        func letter(_ subscriber: String, _ sequence: Int64) -> DeadLetter {
            DeadLetter(
                subscriber: subscriber, sequence: sequence, eventID: ids.next(unixMilliseconds: 1),
                attempts: 5, lastError: "HTTP 503", recordedAt: 1_795_235_029)
        }
        let letters = [letter("webhook", 3), letter("command", 4), letter("webhook", 7), letter("webhook", 9)]
        for item in letters { try store.recordDeadLetter(item) }
        #expect(try store.deadLetters(for: nil) == letters)
        #expect(try store.deadLetters(for: "webhook") == [letters[0], letters[2], letters[3]])
        #expect(try store.deadLetters(for: "nobody").isEmpty)
        try store.removeDeadLetters(for: "webhook", sequences: [3, 9, 4])
        #expect(try store.deadLetters(for: nil) == [letters[1], letters[2]])
    }

    @Test("waitForEvents is true at once when an event already exists")
    func waitForExisting() throws {
        let (store, _) = try journalOfFive()
        #expect(try store.waitForEvents(after: 4, timeout: .zero))
    }

    @Test("waitForEvents wakes when another thread commits")
    func waitWakes() throws {
        let (store, maker) = try journalOfFive()
        // The committing thread runs beside the reader, and commits once the reader is
        // counted as waiting: from then on a commit wakes it (the wake-up path, not the
        // look before the wait).
        let finished = DispatchSemaphore(value: 0)
        let sawWaiting = Locked(false)
        let committer = Thread {
            let waiting = eventuallyOnThisThread(within: .seconds(60), every: .milliseconds(1)) { store.waitingReaders == 1 }
            sawWaiting.withLock { $0 = waiting }
            _ = try? maker.make(.kiwi)
            finished.signal()
        }
        committer.start()
        #expect(try store.waitForEvents(after: 5, timeout: .seconds(60)))
        finished.wait()
        #expect(sawWaiting.withLock { $0 }, "the reader was never counted as waiting")
        #expect(try store.lastSequence() > 5)
        #expect(store.waitingReaders == 0)
    }

    @Test("waitForEvents is false when nothing is committed before the timeout")
    func waitTimesOut() throws {
        let (store, _) = try journalOfFive()
        // The timeout is what is tested: no event can come (nothing else runs).
        #expect(try store.waitForEvents(after: 5, timeout: .milliseconds(150)) == false)
    }

    @Test("the store refuses a negative quantity or a wrong sequence, and keeps nothing of it")
    func storeGuards() throws {
        let (store, _) = try journalOfFive()
        let journal = try store.events(after: 0, limit: 100)
        let stock = try store.stock()
        #expect(throws: StoreError.self) {
            try store.commit { current, _ in
                var negative = current
                negative.kiwi = -1
                return StoreChange(stock: negative, events: [])
            }
        }
        let misnumbered = EventEnvelope(
            sequence: 9, id: EventID(high: 1, low: 1), time: Date(), source: "/test", changeID: EventID(high: 1, low: 2),
            event: .stockChanged(fruit: .kiwi, from: stock.kiwi, to: 0, reason: .edit))
        #expect(throws: StoreError.self) {
            try store.commit { current, _ in
                var changed = current
                changed.kiwi = 0
                return StoreChange(stock: changed, events: [misnumbered])
            }
        }
        #expect(try store.stock() == stock)
        #expect(try store.events(after: 0, limit: 100) == journal)
    }
}
