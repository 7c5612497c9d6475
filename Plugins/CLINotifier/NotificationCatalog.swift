import JuiceMakerCore

/// Every sentence the notifier says, in both languages, in one place.
///
/// Korean follows the seed app's alerts word for word; English says the same.
package struct NotificationCatalog: Sendable, Equatable {
    /// The language the sentences are in.
    package let language: Language

    /// The sentences in `language`.
    package init(language: Language) {
        self.language = language
    }

    /// `딸기쥬스 나왔습니다! 맛있게 드세요!` / `Here's your strawberry juice! Enjoy!`;
    /// with `count` > 1, `망고쥬스 3잔 나왔습니다! 맛있게 드세요!` /
    /// `Here are your 3 mango juices! Enjoy!`.
    package func juiceMade(_ juice: Juice, count: Int) -> String {
        switch (language, count == 1) {
        case (.korean, true): "\(juice.koreanName) 나왔습니다! 맛있게 드세요!"
        case (.korean, false): "\(juice.koreanName) \(count)잔 나왔습니다! 맛있게 드세요!"
        case (.english, true): "Here's your \(juice.englishName)! Enjoy!"
        case (.english, false): "Here are your \(count) \(juice.englishName)s! Enjoy!"
        }
    }

    /// The failed-order alert: `재료가 모자라요. 재고를 수정할까요?` /
    /// `Not enough fruit. Edit the stock?`.
    package var orderFailed: String {
        switch language {
        case .korean: "재료가 모자라요. 재고를 수정할까요?"
        case .english: "Not enough fruit. Edit the stock?"
        }
    }

    /// The failed-order alert where nobody can answer its question (`juice order`,
    /// `juice watch`): `재료가 모자라요.` / `Not enough fruit.`.
    package var orderFailedStatement: String {
        switch language {
        case .korean: "재료가 모자라요."
        case .english: "Not enough fruit."
        }
    }

    /// One missing fruit: `🍓 딸기 6개 부족` / `🍓 strawberry: 6 short`.
    package func shortage(_ fruit: Fruit, amount: Int) -> String {
        switch language {
        case .korean: "\(fruit.emoji) \(fruit.koreanName) \(amount)개 부족"
        case .english: "\(fruit.emoji) \(fruit.englishName): \(amount) short"
        }
    }

    /// One fruit's stock change: `🥝 키위 10 → 9` / `🥝 kiwi 10 → 9`.
    package func stockChanged(_ fruit: Fruit, from: Int, to: Int) -> String {
        "\(fruit.emoji) \(fruit.name(in: language)) \(from) → \(to)"
    }
}
