import JuiceMakerCore

/// The order screen (the seed's 주문 화면): the stock, the seven juices numbered,
/// and a prompt. After an order the notifier's alert appears, then only the fruits
/// that changed. A failed order shows what is short and offers
/// the stock screen; coming back shows the stock again.
struct OrderScreen {
    let io: ScreenIO

    /// Runs until `quit`, the end of input (success) or a stop signal (`interrupted`).
    /// Only store failures throw.
    func run() throws(CLIError) -> ExitCode {
        // From a pipe, results only: no stock line, menu or hint until asked (`help`).
        if io.isInteractive { try showScreen() }
        while true {
            switch io.prompt(Catalog.Screens.orderPrompt, history: .orders, parse: OrderLine.parse) {
            case .end, .line(.quit): return .success
            case .interrupted: return .interrupted
            case .line(.empty): continue
            case .line(.help): try showScreen()
            case .line(.stock):
                if try openStockScreen() == .interrupted { return .interrupted }
            case .line(.order(let juice)):
                if try order(juice) == .interrupted { return .interrupted }
            }
        }
    }

    /// Makes one juice. On a shortage, asks whether to open the stock screen. A store
    /// another process kept locked past the busy timeout refuses this order only: its
    /// error line, nothing made, and the prompt again.
    private func order(_ juice: Juice) throws(CLIError) -> StockScreen.Outcome? {
        let maker = io.maker
        let result: OrderResult
        do {
            result = try io.perform { () throws(JuiceMakerError) in try maker.make(juice) }
        } catch .store(let failure) where failure.kind == .busy {
            io.refuse(Catalog.Errors.store(failure))
            return nil
        } catch {
            throw ValueParsing.cliError(error, path: io.session.context.invocation.path)
        }
        guard case .insufficient = result else { return nil }
        // The alert (`재료가 모자라요. 재고를 수정할까요?`) and the shortages were just
        // shown; the question adds its buttons. Under --quiet nothing was shown.
        let question = io.showsEvents ? Catalog.Screens.yesNo : Catalog.Screens.editStockQuestion
        switch io.ask(question(io.language)) {
        case .yes: return try openStockScreen()
        case .interrupted: return .interrupted
        case .no, .end: return nil
        }
    }

    /// Opens the stock screen; back here, shows the stock as it is now.
    private func openStockScreen() throws(CLIError) -> StockScreen.Outcome {
        let outcome = try StockScreen(io: io).run()
        if outcome != .interrupted, io.isInteractive {
            io.show(Catalog.Screens.stockLine(try io.stock()))
        }
        return outcome
    }

    /// The stock on one line, the numbered menu, and what can be typed.
    private func showScreen() throws(CLIError) {
        io.show(Catalog.Screens.stockLine(try io.stock()))
        let language = io.language
        let rows = Juice.allCases.enumerated().map { index, juice in
            ["\(index + 1)", Catalog.Results.name(juice)(language), Catalog.Results.recipe(juice)(language)]
        }
        io.console.standardOutput.write(TableLayout.render(rows))
        io.show(Catalog.Screens.orderHint)
    }
}
