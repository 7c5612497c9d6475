import JuiceMakerCore

/// One line typed at the order screen's prompt.
enum OrderLine: PromptLine {
    /// Make one of this juice.
    case order(Juice)
    /// Open the stock screen.
    case stock
    /// Show the screen again.
    case help
    /// Leave the shell.
    case quit
    /// An empty line: nothing to do.
    case empty

    static let words: [String: OrderLine] = [
        "stock": .stock, "재고": .stock, "재고수정": .stock,
        "help": .help, "?": .help, "menu": .help, "도움말": .help, "메뉴": .help,
        "quit": .quit, "q": .quit, "exit": .quit, "종료": .quit, "끝": .quit,
    ]

    /// A menu number (`7`), or a juice id or name (`mango-kiwi`, `망고키위쥬스`).
    static func parseOther(_ word: String) throws(ScreenInputError) -> OrderLine {
        if let reading = ValueParsing.reading(word) {
            guard case .value(let number) = reading, (1...Juice.allCases.count).contains(number) else {
                throw ScreenInputError(Catalog.Screens.noSuchNumber(word))
            }
            return .order(Juice.allCases[number - 1])
        }
        do {
            return .order(try Juice.parse(word))
        } catch {
            throw ScreenInputError(Catalog.Screens.unknownJuice(error))
        }
    }
}
