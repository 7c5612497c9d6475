import JuiceMakerTesting
import JuiceTestSupport
import Testing
import Locking
@testable import JuiceMakerCore

/// A synchronous handler may change stock through the maker that is publishing to it.
@Suite("Changes made from inside a synchronous handler", .tags(.unit), .timeLimit(.minutes(1)))
struct ReentrantChangeTests {
    @Test("an auto-restock handler tops banana up without deadlock; every subscriber sees the journal in order")
    func autoRestockFromAHandler() throws {
        let store = InMemoryStore()
        let maker = JuiceMaker(store: store)
        let before = try RecordingSubscriber("before", subscribingTo: maker)
        let restocks = Locked(0)
        _ = try maker.subscribe("auto-restock", kinds: [.stockChanged]) { envelope in
            guard case let .stockChanged(.banana, _, to, reason) = envelope.event, to < 3, reason == .order else { return }
            try maker.add(10, of: .banana)
            restocks.withLock { $0 += 1 }
        }
        let after = try RecordingSubscriber("after", subscribingTo: maker)

        var made = 0
        for _ in 0..<50 {
            if case .made = try maker.make(.banana) { made += 1 }
        }

        // Never short: the handler restocked whenever banana fell below 3.
        #expect(made == 50)
        let journal = try store.events(after: 0, limit: Int.max)
        #expect(journal.map(\.sequence) == Array(1...Int64(journal.count)))
        #expect(before.events == journal)
        #expect(after.events == journal)
        let restockEvents = journal.filter {
            if case .stockChanged(.banana, _, _, .restock) = $0.event { return true }
            return false
        }
        #expect(restockEvents.count == restocks.withLock { $0 })
        #expect(restockEvents.count > 0)
        // Replaying the journal gives the stored stock, and no step goes negative.
        var banana = Stock.defaultInitialQuantity
        for envelope in journal {
            guard case let .stockChanged(.banana, from, to, _) = envelope.event else { continue }
            #expect(from == banana)
            #expect(to >= 0)
            banana = to
        }
        #expect(try maker.stock().banana == banana)
        // Ids stay unique across nested changes.
        #expect(Set(journal.map(\.id)).count == journal.count)
    }

    @Test("subscribing with the current stock from inside a handler works")
    func subscribeFromAHandler() throws {
        let maker = JuiceMaker(store: InMemoryStore())
        let seen = Locked<Stock?>(nil)
        _ = try maker.subscribe("joiner", kinds: [.juiceMade]) { _ in
            _ = try maker.subscribe("late", currentStock: { stock in seen.withLock { $0 = stock } }) { _ in }
        }
        try maker.make(.kiwi)
        #expect(seen.withLock { $0 }?.kiwi == 7)
    }
}
