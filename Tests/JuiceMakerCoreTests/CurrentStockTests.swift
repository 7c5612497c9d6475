import EventBus
import JuiceMakerTesting
import JuiceTestSupport
import Testing
import Locking
@testable import JuiceMakerCore

@Suite("The current stock on subscription (the initial-value race)", .tags(.unit))
struct CurrentStockTests {
    @Test("a late subscriber gets the current stock first, then every later event")
    func lateSubscriber() throws {
        let store = InMemoryStore()
        let maker = JuiceMaker(store: store)
        try maker.add(5, of: .mango)
        try maker.make(.mangoKiwi)
        let recorder = try RecordingSubscriber(subscribingTo: maker, receivingCurrentStock: true)
        #expect(recorder.initialStock == Stock(strawberry: 10, banana: 10, pineapple: 10, kiwi: 9, mango: 13))
        #expect(recorder.count == 0)
        try maker.make(.mango)
        #expect(
            recorder.events.map(\.event) == [
                .juiceMade(juice: .mango, count: 1, consumed: FruitAmounts(mango: 3)),
                .stockChanged(fruit: .mango, from: 13, to: 10, reason: .order),
            ])
    }

    @Test("the current stock is handed over before subscribe returns, without it nothing is")
    func callbackTiming() throws {
        let maker = JuiceMaker(store: InMemoryStore())
        let received = Locked<[Stock]>([])
        let token = try maker.subscribe("screen", currentStock: { stock in received.withLock { $0.append(stock) } }) { _ in }
        #expect(received.withLock { $0 } == [Stock(repeating: 10)])
        try maker.make(.kiwi)
        #expect(received.withLock { $0.count } == 1)
        token.cancel()
        #expect(try RecordingSubscriber(subscribingTo: maker).initialStock == nil)
    }

    /// Replays `events` onto `stock`, failing on any event whose `from` is not the
    /// running value (a gap or a duplicate).
    private func replay(_ events: [EventEnvelope], onto stock: Stock, name: String) -> Stock {
        var stock = stock
        for envelope in events {
            guard let change = envelope.stockChange else { continue }
            #expect(change.from == stock[change.fruit], "\(name): gap or duplicate at sequence \(envelope.sequence)")
            stock[change.fruit] = change.to
        }
        return stock
    }

    @Test(
        "subscribing while other threads change the stock never loses or repeats a change",
        arguments: [
            Delivery.synchronous, .queued(capacity: 100_000),
        ])
    func subscribeDuringChanges(delivery: Delivery) throws {
        let store = InMemoryStore()
        let maker = JuiceMaker(store: store)
        let recorders = Locked<[RecordingSubscriber]>([])
        let writers = 4
        let subscribers = 40
        let finished = runThreads(writers + 1) { index in
            if index == writers {
                for number in 0..<subscribers {
                    if let recorder = try? RecordingSubscriber(
                        "screen-\(number)", subscribingTo: maker, delivery: delivery, receivingCurrentStock: true)
                    {
                        recorders.withLock { $0.append(recorder) }
                    }
                }
                return
            }
            var random = SeededGenerator(seed: UInt64(index + 1))
            for _ in 0..<1_500 {
                let fruit = Fruit.allCases.randomElement(using: &random) ?? .kiwi
                switch Int.random(in: 0..<3, using: &random) {
                case 0: _ = try? maker.add(Int.random(in: 1...4, using: &random), of: fruit)
                case 1: _ = try? maker.remove(Int.random(in: 1...3, using: &random), of: fruit)
                default: _ = try? maker.make(Juice.allCases.randomElement(using: &random) ?? .kiwi)
                }
            }
        }
        #expect(finished)
        #expect(maker.waitUntilIdle(timeout: .seconds(60)))
        let final = try maker.stock()
        let journal = try store.events(after: 0, limit: Int.max)
        let all = recorders.withLock { $0 }
        #expect(all.count == subscribers)
        for recorder in all {
            let initial = try #require(recorder.initialStock)
            // Everything committed after the handed-over stock, and nothing before it.
            let firstUnseen = journal.count - recorder.count
            let events = recorder.events
            #expect(events == Array(journal[firstUnseen...]), "\(recorder.name) missed or repeated an event")
            #expect(
                replay(Array(journal[..<firstUnseen]), onto: Stock(repeating: 10), name: "journal") == initial,
                "\(recorder.name): the handed-over stock is not the stock before its first event")
            #expect(replay(events, onto: initial, name: recorder.name) == final)
        }
    }
}
