/// A count per fruit: a stock, a recipe, what an order consumed or lacked.
///
/// A value type with no heap storage, so orders do not allocate for it.
public struct FruitAmounts: Sendable, Hashable {
    public var strawberry: Int
    public var banana: Int
    public var pineapple: Int
    public var kiwi: Int
    public var mango: Int

    public init(strawberry: Int = 0, banana: Int = 0, pineapple: Int = 0, kiwi: Int = 0, mango: Int = 0) {
        self.strawberry = strawberry
        self.banana = banana
        self.pineapple = pineapple
        self.kiwi = kiwi
        self.mango = mango
    }

    /// The same amount of every fruit.
    public init(repeating amount: Int) {
        self.init(strawberry: amount, banana: amount, pineapple: amount, kiwi: amount, mango: amount)
    }

    /// Fruits missing from `amounts` count 0.
    public init(_ amounts: [Fruit: Int]) {
        self.init()
        for (fruit, amount) in amounts { self[fruit] = amount }
    }

    public static let zero = FruitAmounts()

    public subscript(fruit: Fruit) -> Int {
        get {
            switch fruit {
            case .strawberry: strawberry
            case .banana: banana
            case .pineapple: pineapple
            case .kiwi: kiwi
            case .mango: mango
            }
        }
        set {
            switch fruit {
            case .strawberry: strawberry = newValue
            case .banana: banana = newValue
            case .pineapple: pineapple = newValue
            case .kiwi: kiwi = newValue
            case .mango: mango = newValue
            }
        }
    }

    /// The fruits with a non-zero amount, in `Fruit.allCases` order.
    public var nonZero: [(fruit: Fruit, amount: Int)] {
        Fruit.allCases.compactMap { self[$0] == 0 ? nil : ($0, self[$0]) }
    }

    /// True when every amount is 0.
    public var isZero: Bool { self == .zero }

    /// The amounts as a dictionary without zero entries.
    public var dictionary: [Fruit: Int] {
        Dictionary(uniqueKeysWithValues: nonZero.map { ($0.fruit, $0.amount) })
    }

    /// Each amount multiplied by `factor`, or `nil` on overflow.
    public func multiplied(by factor: Int) -> FruitAmounts? {
        var result = FruitAmounts()
        for fruit in Fruit.allCases {
            let (value, overflow) = self[fruit].multipliedReportingOverflow(by: factor)
            if overflow { return nil }
            result[fruit] = value
        }
        return result
    }
}

/// The machine's stock: how many of each fruit it holds.
public typealias Stock = FruitAmounts

extension FruitAmounts {
    /// The largest quantity of one fruit the machine holds. Edits that would go
    /// above it are rejected with `JuiceMakerError.aboveMaximum`.
    public static let maximumQuantity = 1_000_000

    /// The stock every new store starts with, unless configured otherwise.
    public static let defaultInitialQuantity = 10
}
