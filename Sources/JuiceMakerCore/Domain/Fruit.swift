/// The five fruits the machine stocks, in the order the seed screens show them.
public enum Fruit: String, Sendable, CaseIterable, Hashable, Comparable {
    case strawberry
    case banana
    case pineapple
    case kiwi
    case mango

    /// The stable id used in config, JSON and the command line (`strawberry`).
    public var id: String { rawValue }

    public var emoji: String {
        switch self {
        case .strawberry: "🍓"
        case .banana: "🍌"
        case .pineapple: "🍍"
        case .kiwi: "🥝"
        case .mango: "🥭"
        }
    }

    public var koreanName: String {
        switch self {
        case .strawberry: "딸기"
        case .banana: "바나나"
        case .pineapple: "파인애플"
        case .kiwi: "키위"
        case .mango: "망고"
        }
    }

    public var englishName: String {
        switch self {
        case .strawberry: "strawberry"
        case .banana: "banana"
        case .pineapple: "pineapple"
        case .kiwi: "kiwi"
        case .mango: "mango"
        }
    }

    public func name(in language: Language) -> String {
        language == .korean ? koreanName : englishName
    }

    /// Position in `allCases`; the order of stock columns.
    package var index: Int {
        switch self {
        case .strawberry: 0
        case .banana: 1
        case .pineapple: 2
        case .kiwi: 3
        case .mango: 4
        }
    }

    public static func < (lhs: Fruit, rhs: Fruit) -> Bool { lhs.index < rhs.index }
}
