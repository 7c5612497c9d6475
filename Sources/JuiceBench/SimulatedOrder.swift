import JuiceMakerCore

/// One order as `JuiceMaker` makes it, for the journals the benches write straight into
/// a store (faster than a million orders through the maker): the same events, in the
/// same order, from the same stock.
enum SimulatedOrder {
    /// How much of each fruit `stock` lacks for one `juice`; zero when it can be made.
    static func shortages(of juice: Juice, in stock: Stock) -> FruitAmounts {
        var shortages = FruitAmounts()
        for fruit in Fruit.allCases where juice.recipe[fruit] > stock[fruit] {
            shortages[fruit] = juice.recipe[fruit] - stock[fruit]
        }
        return shortages
    }

    /// One `juice` made from `stock`, which the caller has checked holds enough
    /// (`shortages`): `juiceMade`, then one `stockChanged` (reason `order`) per fruit used.
    static func make(_ juice: Juice, from stock: inout Stock) -> [JuiceMakerEvent] {
        let needed = juice.recipe
        var events: [JuiceMakerEvent] = [.juiceMade(juice: juice, count: 1, consumed: needed)]
        for item in needed.nonZero {
            let before = stock[item.fruit]
            stock[item.fruit] -= item.amount
            events.append(.stockChanged(fruit: item.fruit, from: before, to: stock[item.fruit], reason: .order))
        }
        return events
    }
}
