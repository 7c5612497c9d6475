import Foundation
import JuiceMakerCore
import SQLiteStore

/// The invariants every store file must hold, whatever happened to the processes
/// that wrote it. Each check returns what it found wrong; empty means it holds.
struct StoreInvariants {
    let stock: Stock
    let events: [EventEnvelope]
    let initialStock: Stock

    init(store: SQLiteStore, initialStock: Stock = Stock(repeating: Stock.defaultInitialQuantity)) throws {
        stock = try store.stock()
        events = try store.events(after: 0, limit: Int.max)
        self.initialStock = initialStock
    }

    /// Everything below; empty when the file is sound.
    var violations: [String] {
        contiguous + replay + consumption + uniqueIDs + increasingIDs
    }

    /// Sequences are 1, 2, 3… with no gap and no repeat.
    var contiguous: [String] {
        events.enumerated().compactMap { offset, envelope in
            envelope.sequence == Int64(offset + 1) ? nil : "event at \(offset) has sequence \(envelope.sequence)"
        }
    }

    /// Replaying every stockChanged from the initial stock gives the stored stock, and
    /// each event starts where the previous one of its fruit ended: no stock change
    /// without its journal row, no journal row without its change.
    var replay: [String] {
        var problems: [String] = []
        var replayed = initialStock
        for envelope in events {
            guard case let .stockChanged(fruit, from, to, _) = envelope.event else { continue }
            if from != replayed[fruit] { problems.append("event \(envelope.sequence): \(fruit.id) from \(from), journal says \(replayed[fruit])") }
            if to < 0 { problems.append("event \(envelope.sequence): \(fruit.id) went negative (\(to))") }
            replayed[fruit] = to
        }
        if replayed != stock { problems.append("replayed stock \(replayed) != stored stock \(stock)") }
        if let fruit = Fruit.allCases.first(where: { stock[$0] < 0 }) { problems.append("stored \(fruit.id) is negative") }
        return problems
    }

    /// Each juiceMade consumed its recipe × count, and the fruit that orders took is
    /// exactly what the juiceMade events of the same change consumed.
    var consumption: [String] {
        var problems: [String] = []
        var madeByChange: [EventID: FruitAmounts] = [:]
        var takenByChange: [EventID: FruitAmounts] = [:]
        for envelope in events {
            switch envelope.event {
            case let .juiceMade(juice, count, consumed):
                if juice.recipe.multiplied(by: count) != consumed {
                    problems.append("event \(envelope.sequence): \(count) \(juice.id) consumed \(consumed)")
                }
                madeByChange[envelope.changeID, default: .zero] = consumed
            case let .stockChanged(fruit, from, to, .order):
                takenByChange[envelope.changeID, default: .zero][fruit] += from - to
            default:
                break
            }
        }
        if madeByChange != takenByChange {
            let differing = Set(madeByChange.keys).symmetricDifference(takenByChange.keys).count
            problems.append("fruit taken by orders differs from the juices made (\(differing) changes on one side only)")
        }
        return problems
    }

    var uniqueIDs: [String] {
        Set(events.map(\.id)).count == events.count ? [] : ["event ids repeat"]
    }

    /// Ids increase strictly in journal order (RFC 9562 section 6.2), whichever
    /// process wrote each event.
    var increasingIDs: [String] {
        zip(events, events.dropFirst()).compactMap { previous, next in
            next.id > previous.id ? nil : "event \(next.sequence) id \(next.id) is not after \(previous.id)"
        }
    }

    /// The ids of every juiceMade event, in journal order.
    var madeIDs: [EventID] {
        events.compactMap { envelope in
            if case .juiceMade = envelope.event { envelope.id } else { nil }
        }
    }
}
