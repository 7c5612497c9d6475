import JuiceMakerCore

/// One line typed at the stock screen's prompt.
enum StockLine: PromptLine {
    /// `+ kiwi` or `+ kiwi 3`: add to the draft (1 when no amount is given).
    case add(Fruit, Int)
    /// `- kiwi` or `- kiwi 3`: remove from the draft.
    case remove(Fruit, Int)
    /// `kiwi 20` (or `kiwi=20`): set the draft's quantity.
    case set(Fruit, Int)
    /// Ask for confirmation, then store the draft as one change.
    case apply
    /// Throw the draft away.
    case cancel
    /// Show the commands.
    case help
    /// Show every fruit of the draft.
    case show
    /// An empty line: nothing to do.
    case empty

    static let words: [String: StockLine] = [
        "apply": .apply, "적용": .apply,
        "cancel": .cancel, "취소": .cancel,
        "help": .help, "?": .help, "도움말": .help,
        "show": .show, "list": .show, "stock": .show, "재고": .show,
    ]

    /// An edit. Fruits are ids, English or Korean names (`키위`); a typo gets a
    /// suggestion. Amounts are checked by the draft, not here, except that they must
    /// be whole numbers.
    static func parseOther(_ line: String) throws(ScreenInputError) -> StockLine {
        if let sign = line.first, sign == "+" || sign == "-" {
            let words = line.dropFirst().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard (1...2).contains(words.count) else { throw ScreenInputError(Catalog.Screens.notAStockCommand(line)) }
            let fruit = try fruit(words[0])
            let amount = words.count == 2 ? try amount(words[1]) : 1
            return sign == "+" ? .add(fruit, amount) : .remove(fruit, amount)
        }
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "=" }).map(String.init)
        switch words.count {
        case 1:
            throw ScreenInputError(Catalog.Screens.missingQuantity(try fruit(words[0], orElse: line)))
        case 2:
            let fruit = try fruit(words[0])
            return .set(fruit, try amount(words[1]))
        default:
            throw ScreenInputError(Catalog.Screens.notAStockCommand(line))
        }
    }

    /// The fruit named `word`. Without a close match and with `line` given, the line
    /// is no stock command at all rather than an unknown fruit.
    private static func fruit(_ word: String, orElse line: String? = nil) throws(ScreenInputError) -> Fruit {
        do {
            return try Fruit.parse(word)
        } catch {
            if let line, error.suggestion == nil { throw ScreenInputError(Catalog.Screens.notAStockCommand(line)) }
            throw ScreenInputError(Catalog.Screens.unknownFruit(error))
        }
    }

    private static func amount(_ word: String) throws(ScreenInputError) -> Int {
        switch ValueParsing.reading(word) {
        case nil: throw ScreenInputError(Catalog.Screens.notAnAmount(word))
        case .aboveInt: throw ScreenInputError(Catalog.Screens.amountAboveMaximum(word))
        case .belowInt: throw ScreenInputError(Catalog.Screens.amountBelowZero(word))
        case .value(let value): return value
        }
    }

    /// Applies an edit line to `draft`; a refused edit leaves it as it was.
    /// Returns the fruit edited, or `nil` for a line that is not an edit.
    func edit(_ draft: inout StockDraft) throws(JuiceMakerError) -> Fruit? {
        switch self {
        case let .add(fruit, amount): try draft.add(amount, of: fruit); return fruit
        case let .remove(fruit, amount): try draft.remove(amount, of: fruit); return fruit
        case let .set(fruit, quantity): try draft.set(fruit, to: quantity); return fruit
        case .apply, .cancel, .help, .show, .empty: return nil
        }
    }
}
