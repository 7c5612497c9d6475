import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore

/// A seeded, reproducible order history written into a real store through the
/// library, with event times spread over days (the maker stamps the real clock, so a
/// history over weeks is written the way the maker would write it, change by change).
struct ReportHistory {
    /// Writes `changes` changes into the store at `path`: orders of random juices (made
    /// when the stock allows, else failed with their shortages) and now and then a
    /// restock, starting at `start` (epoch ms) and `step` ms apart at most. Returns
    /// the time of the last change.
    @discardableResult
    static func write(
        to path: String, seed: UInt64, changes: Int, start: Int64, maximumStep: Int64 = 90 * 60_000,
        initialStock: Int = 12
    ) throws -> Int64 {
        // SplitMix64: the same seed gives the same history on every machine.
        var random = SeededGenerator(seed: seed)
        var ids = EventIDGenerator()
        let store = try SQLiteStore(path: path, durability: .normal, initialStock: Stock(repeating: initialStock))
        var time = start
        for _ in 0..<changes {
            time += Int64.random(in: 1...maximumStep, using: &random)
            let restock = Int.random(in: 0..<8, using: &random) == 0
            let juice = Juice.allCases.randomElement(using: &random) ?? .banana
            let count = Int.random(in: 1...3, using: &random)
            let fruit = Fruit.allCases.randomElement(using: &random) ?? .kiwi
            let amount = Int.random(in: 5...40, using: &random)
            let at = time
            _ = try store.commit { current, position in
                let date = Date(timeIntervalSince1970: Double(at) / 1000)
                let change = ids.next(unixMilliseconds: UInt64(at), after: position.lastEventID)
                var sequence = position.nextSequence
                func envelope(_ event: JuiceMakerEvent) -> EventEnvelope {
                    defer { sequence += 1 }
                    return EventEnvelope(
                        sequence: sequence, id: ids.next(unixMilliseconds: UInt64(at)), time: date,
                        source: EventEnvelope.defaultSource, changeID: change, event: event)
                }
                var stock = current
                var events: [EventEnvelope] = []
                if restock {
                    stock[fruit] += amount
                    events.append(envelope(.stockChanged(fruit: fruit, from: current[fruit], to: stock[fruit], reason: .restock)))
                    return StoreChange(stock: stock, events: events)
                }
                var needed = FruitAmounts()
                var shortages = FruitAmounts()
                for item in juice.recipe.nonZero {
                    needed[item.fruit] = item.amount * count
                    shortages[item.fruit] = max(0, needed[item.fruit] - current[item.fruit])
                }
                guard shortages.isZero else {
                    return StoreChange(stock: current, events: [envelope(.orderFailed(juice: juice, count: count, shortages: shortages))])
                }
                events.append(envelope(.juiceMade(juice: juice, count: count, consumed: needed)))
                for item in needed.nonZero {
                    stock[item.fruit] -= item.amount
                    events.append(envelope(.stockChanged(fruit: item.fruit, from: current[item.fruit], to: stock[item.fruit], reason: .order)))
                }
                return StoreChange(stock: stock, events: events)
            }
        }
        return time
    }
}
