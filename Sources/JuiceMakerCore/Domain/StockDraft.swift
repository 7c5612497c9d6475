/// A stock edit in progress (the seed's stepper screen): changes stay here until
/// `JuiceMaker.apply(_:)` commits them as one change, or the draft is dropped.
///
/// Every edit is validated when made; a refused edit leaves the draft as it was.
public struct StockDraft: Sendable, Equatable {
    /// The stock when the draft began.
    public let base: Stock
    /// The stock the draft would write.
    public private(set) var quantities: Stock

    public init(base: Stock) {
        self.base = base
        self.quantities = base
    }

    /// Adds `amount` (≥ 1, at most `Stock.maximumQuantity`) of `fruit`; the sum is
    /// computed with an overflow check and must stay within the maximum too.
    public mutating func add(_ amount: Int, of fruit: Fruit) throws(JuiceMakerError) {
        guard amount >= 1 else { throw .invalidAmount(fruit, amount) }
        guard amount <= Stock.maximumQuantity else {
            throw .amountAboveMaximum(fruit, amount: amount, maximum: Stock.maximumQuantity)
        }
        let (total, overflow) = quantities[fruit].addingReportingOverflow(amount)
        guard !overflow else { throw .amountAboveMaximum(fruit, amount: amount, maximum: Stock.maximumQuantity) }
        try set(fruit, to: total)
    }

    /// Removes `amount` (≥ 1) of `fruit`; never below zero.
    public mutating func remove(_ amount: Int, of fruit: Fruit) throws(JuiceMakerError) {
        guard amount >= 1 else { throw .invalidAmount(fruit, amount) }
        guard amount <= quantities[fruit] else {
            throw .notEnoughToRemove(fruit, available: quantities[fruit], requested: amount)
        }
        quantities[fruit] -= amount
    }

    /// Sets `fruit` to `quantity` (0…`Stock.maximumQuantity`).
    public mutating func set(_ fruit: Fruit, to quantity: Int) throws(JuiceMakerError) {
        guard quantity >= 0 else { throw .invalidAmount(fruit, quantity) }
        guard quantity <= Stock.maximumQuantity else {
            throw .aboveMaximum(fruit, requested: quantity, maximum: Stock.maximumQuantity)
        }
        quantities[fruit] = quantity
    }

    /// Puts every fruit back to `base`.
    public mutating func discardChanges() {
        quantities = base
    }

    /// The fruits whose quantity the draft changes, with old and new values.
    public var changes: [(fruit: Fruit, from: Int, to: Int)] {
        Fruit.allCases.compactMap { fruit in
            base[fruit] == quantities[fruit] ? nil : (fruit, base[fruit], quantities[fruit])
        }
    }

    public var hasChanges: Bool { base != quantities }
}
