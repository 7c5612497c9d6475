/// The seven juices on the menu, with the seed recipes.
public enum Juice: String, Sendable, CaseIterable, Hashable {
    case strawberry
    case banana
    case kiwi
    case pineapple
    case strawberryBanana = "strawberry-banana"
    case mango
    case mangoKiwi = "mango-kiwi"

    /// The stable kebab-case id (`strawberry-banana`).
    public var id: String { rawValue }

    /// The fruit one juice takes.
    public var recipe: FruitAmounts {
        switch self {
        case .strawberry: FruitAmounts(strawberry: 16)
        case .banana: FruitAmounts(banana: 2)
        case .kiwi: FruitAmounts(kiwi: 3)
        case .pineapple: FruitAmounts(pineapple: 2)
        case .strawberryBanana: FruitAmounts(strawberry: 10, banana: 1)
        case .mango: FruitAmounts(mango: 3)
        case .mangoKiwi: FruitAmounts(kiwi: 1, mango: 2)
        }
    }

    /// The seed's name (`딸바쥬스`).
    public var koreanName: String {
        switch self {
        case .strawberry: "딸기쥬스"
        case .banana: "바나나쥬스"
        case .kiwi: "키위쥬스"
        case .pineapple: "파인애플쥬스"
        case .strawberryBanana: "딸바쥬스"
        case .mango: "망고쥬스"
        case .mangoKiwi: "망고키위쥬스"
        }
    }

    public var englishName: String {
        switch self {
        case .strawberry: "strawberry juice"
        case .banana: "banana juice"
        case .kiwi: "kiwi juice"
        case .pineapple: "pineapple juice"
        case .strawberryBanana: "strawberry-banana juice"
        case .mango: "mango juice"
        case .mangoKiwi: "mango-kiwi juice"
        }
    }

    public func name(in language: Language) -> String {
        language == .korean ? koreanName : englishName
    }

    /// How many of this juice `stock` can make now.
    public func servings(from stock: Stock) -> Int {
        recipe.nonZero.map { stock[$0.fruit] / $0.amount }.min() ?? 0
    }

    /// The most one order can ask for: what a stock of `Stock.maximumQuantity` of every
    /// fruit makes (62,500 strawberry juices, at 16 strawberries each). A larger order
    /// could never be made, whatever the stock: `JuiceMaker.order` refuses it.
    public var largestOrder: Int {
        servings(from: Stock(repeating: Stock.maximumQuantity))
    }
}
