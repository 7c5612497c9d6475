import Dispatch
import Foundation
import JuiceMakerPluginKit
import JuiceTestSupport
import Locking
import Synchronization
import Testing
@testable import JuiceMakerCore

/// What a plugin can reach cannot break "journaled first, in journal order", nor
/// deadlock the maker.
@Suite("The plugin's view and the lock order", .tags(.unit), .timeLimit(.minutes(2)))
struct LockOrderTests {
    /// The host a plugin is given over `store`.
    func host(for maker: JuiceMaker, store: InMemoryStore) -> PluginHost {
        PluginHost(maker: maker, journal: store, reportError: { _ in })
    }

    @Test("the journal a plugin gets is a read view: it cannot be cast to the store's writer")
    func journalIsAView() {
        let store = InMemoryStore()
        let host = host(for: JuiceMaker(store: store), store: store)
        #expect(!(host.journal is any StockStore))
        #expect(!(host.journal is InMemoryStore))
    }

    /// The scenario that deadlocked when plugins could publish on the bus directly:
    /// thread X causes a publish whose synchronous handler changes stock, while
    /// thread Y is inside an order and publishing, and thread Z subscribes, reads
    /// statistics and cancels. Through the plugin's view X can only publish by
    /// committing a change, so both take the change lock first.
    @Test("X's handler changes stock while Y orders and Z subscribes: 200 rounds, no deadlock, journal intact")
    func handlerChangeWhileOrdering() throws {
        for round in 0..<200 {
            let store = InMemoryStore(initialStock: Stock(repeating: 1_000))
            let maker = JuiceMaker(store: store)
            let host = host(for: maker, store: store)
            let seen = Locked<[Int64]>([])
            _ = try host.maker.subscribe("restocker", kinds: [.stockChanged]) { envelope in
                seen.withLock { $0.append(envelope.sequence) }
                if case .stockChanged(.mango, _, _, .restock) = envelope.event {
                    try host.maker.add(1, of: .kiwi)
                }
            }
            let finished = runThreads(3, within: .seconds(60)) { index in
                switch index {
                case 0: for _ in 0..<20 { _ = try? host.maker.add(1, of: .mango) }
                case 1: for _ in 0..<20 { _ = try? maker.make(.banana) }
                default:
                    for _ in 0..<20 {
                        let token = try? host.maker.subscribe("joiner") { _ in }
                        _ = maker.subscriberStatistics()
                        token?.cancel()
                    }
                }
            }
            #expect(finished, "round \(round) deadlocked")
            guard finished else { return }
            let journal = try store.events(after: 0, limit: Int.max)
            #expect(journal.map(\.sequence) == Array(1...Int64(journal.count)))
            let stockChanges = journal.filter { $0.event.kind == .stockChanged }.map(\.sequence)
            #expect(seen.withLock { $0 } == stockChanges)
            // Each mango restock made exactly one kiwi restock.
            let restocked = journal.compactMap { envelope -> Fruit? in
                if case let .stockChanged(fruit, _, _, .restock) = envelope.event { return fruit }
                return nil
            }
            #expect(restocked.filter { $0 == .mango }.count == 20)
            #expect(restocked.filter { $0 == .kiwi }.count == 20)
            #expect(try maker.stock().kiwi == 1_020)
            #expect(try maker.stock().banana == 1_000 - 20 * Juice.banana.recipe[.banana])
        }
    }
}
