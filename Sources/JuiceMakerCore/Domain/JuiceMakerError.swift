/// Why the juice maker refused a request. Nothing was changed.
public enum JuiceMakerError: Error, Sendable, Equatable {
    /// An amount below zero (or zero where at least one is needed).
    case invalidAmount(Fruit, Int)
    /// The fruit's quantity would exceed `FruitAmounts.maximumQuantity`.
    case aboveMaximum(Fruit, requested: Int, maximum: Int)
    /// An amount to add that is itself above `FruitAmounts.maximumQuantity`, so no
    /// stock could take it (and the sum could overflow): refused before adding.
    case amountAboveMaximum(Fruit, amount: Int, maximum: Int)
    /// Removing more than there is.
    case notEnoughToRemove(Fruit, available: Int, requested: Int)
    /// An order for fewer than one juice, or for more of a fruit than the machine can
    /// ever hold (`Stock.maximumQuantity`).
    case invalidCount(Int)
    /// A draft was applied after its fruits changed underneath it.
    case draftConflict([Fruit])
    /// The store failed.
    case store(StoreError)
}
