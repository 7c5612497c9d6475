import JuiceMakerCore

/// A line the person typed that a screen refuses: one message, nothing changed.
struct ScreenInputError: Error, Sendable, Equatable {
    let message: LocalizedText

    init(_ message: LocalizedText) {
        self.message = message
    }
}

/// One line typed at the order screen's prompt.
enum OrderLine: Sendable, Equatable {
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

    /// Reads a menu number (`7`), a juice id or name (`mango-kiwi`, `망고키위쥬스`), or
    /// a word: `stock`/`재고`, `help`/`?`/`도움말`, `quit`/`q`/`exit`/`종료`.
    static func parse(_ text: String) throws(ScreenInputError) -> OrderLine {
        let word = text.trimmingWhitespace()
        if word.isEmpty { return .empty }
        switch word.lowercased() {
        case "stock", "재고", "재고수정": return .stock
        case "help", "?", "menu", "도움말", "메뉴": return .help
        case "quit", "q", "exit", "종료", "끝": return .quit
        default: break
        }
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

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }
}
