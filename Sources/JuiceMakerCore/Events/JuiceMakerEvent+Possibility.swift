extension JuiceMakerEvent {
    /// Why this event cannot have happened on a machine, or `nil`: what a reader of
    /// events it did not write itself (another machine's messages, a damaged store's
    /// rows) checks before it believes one.
    package var impossibility: String? {
        let quantities = 0...Stock.maximumQuantity
        switch self {
        case let .stockChanged(fruit, from, to, reason):
            guard quantities.contains(from), quantities.contains(to) else {
                return "\(fruit.id) from \(from) to \(to): a quantity is 0 to \(Stock.maximumQuantity)"
            }
            if reason == .order, to >= from { return "\(fruit.id) from \(from) to \(to) by an order, which only takes fruit" }
            if reason == .restock, to <= from { return "\(fruit.id) from \(from) to \(to) by a restock, which only adds fruit" }
        case let .juiceMade(juice, count, amounts), let .orderFailed(juice, count, amounts):
            guard (1...juice.largestOrder).contains(count) else { return "\(count) \(juice.id): a count is 1 to \(juice.largestOrder)" }
            guard Fruit.allCases.allSatisfy({ quantities.contains(amounts[$0]) }) else {
                return "an amount of fruit is outside 0 to \(Stock.maximumQuantity)"
            }
        }
        return nil
    }
}
