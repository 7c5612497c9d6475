import JuiceMakerCore
import JuiceMakerPluginKit

/// Turns one event into the lines a person reads. Pure: no I/O, no state, so the
/// notifier and `juice watch` show events the same way.
///
/// - `juiceMade`: one line, the seed's success alert.
/// - `orderFailed`: the seed's failure alert, then one indented line per short
///   fruit, in menu order (`  🍓 딸기 6개 부족`). The alert asks `재고를 수정할까요?`
///   only when the person can answer (`asks`); otherwise it states `재료가 모자라요.`.
/// - `stockChanged`: one line, `🥝 키위 10 → 9`.
///
/// With `color`, lines are wrapped in ANSI SGR codes (success bold green, failure
/// bold red, shortages yellow, stock changes dim); without it, no escape code
/// appears at all.
package struct NotificationRenderer: EventRenderer, Equatable {
    /// The sentences used.
    package let catalog: NotificationCatalog
    /// Whether lines carry ANSI colour codes.
    package let color: Bool
    /// Whether the failure alert asks its question (the person can answer it).
    package let asks: Bool

    /// A renderer for `language`, with or without ANSI colour; `asks: false` where
    /// nobody can answer a question.
    package init(language: Language, color: Bool, asks: Bool = true) {
        self.catalog = NotificationCatalog(language: language)
        self.color = color
        self.asks = asks
    }

    /// The lines for `envelope`, without newlines.
    package func lines(for envelope: EventEnvelope) -> [String] {
        switch envelope.event {
        case let .juiceMade(juice, count, _):
            return [styled(catalog.juiceMade(juice, count: count), .success)]
        case let .orderFailed(_, _, shortages):
            return [styled(asks ? catalog.orderFailed : catalog.orderFailedStatement, .failure)]
                + shortages.nonZero.map { styled("  " + catalog.shortage($0.fruit, amount: $0.amount), .shortage) }
        case let .stockChanged(fruit, from, to, _):
            return [styled(catalog.stockChanged(fruit, from: from, to: to), .stock)]
        }
    }

    private enum Style: String {
        case success = "1;32"
        case failure = "1;31"
        case shortage = "33"
        case stock = "2"
    }

    private func styled(_ text: String, _ style: Style) -> String {
        color ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }
}
