/// `juice shell`: the order screen, on a terminal or over piped input
/// (`printf '7\nq\n' | juice shell` makes one mango-kiwi juice).
///
/// Exit status: 0 after `quit` or the end of input; 130 after Ctrl-C (143 after
/// SIGTERM, 129 after SIGHUP), once the command that was running has finished and the
/// bus and plugins have shut down (never in the middle of an order or an apply); 74
/// if the store fails (an order the store's lock held up is refused, and the prompt
/// comes back).
struct ShellCommand: ScreenCommand {
    static let configuration = CommandConfiguration(
        commandName: "shell",
        abstract: LocalizedText(
            "Open the order screen: order by number or name, edit the stock, see what changed.",
            ko: "주문 화면을 엽니다: 번호나 이름으로 주문하고, 재고를 수정하고, 바뀐 것을 봅니다."))

    func show(_ io: ScreenIO) throws(CLIError) -> ExitCode {
        try OrderScreen(io: io).run()
    }
}

/// `juice stock edit`: the stock screen on its own. Exit status: 0 after `apply` or
/// `cancel` (the end of input cancels); 130 after Ctrl-C, 143 after SIGTERM, 129
/// after SIGHUP (the draft is dropped, nothing stored); 74 if the store fails.
struct StockEditCommand: ScreenCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: LocalizedText(
            "Open the stock screen: edit a draft, then apply it as one change or cancel it.",
            ko: "재고 수정 화면을 엽니다: 초안을 고친 뒤 한 번에 적용하거나 취소합니다."))

    func show(_ io: ScreenIO) throws(CLIError) -> ExitCode {
        try StockScreen(io: io).run() == .interrupted ? .interrupted : .success
    }
}

/// A command that is a screen for a person (`juice shell`, `juice stock edit`).
///
/// `--json` would be ignored, so it is refused (exit 64, one line) before anything
/// runs. The screen opens on the terminal or piped input: the maker with its plugins,
/// and line input that a stop signal (Ctrl-C, SIGTERM, SIGHUP) ends; the runner turns
/// `.interrupted` into 128 + that signal.
protocol ScreenCommand: JuiceCommand {
    init()
    /// Runs the screen on `io`; what it returns is how `juice` exits.
    func show(_ io: ScreenIO) throws(CLIError) -> ExitCode
}

extension ScreenCommand {
    static var isScreen: Bool { true }

    init(_ invocation: Invocation) throws(CLIError) {
        if try GlobalOptions(invocation).json.value {
            let name = invocation.path.map(\.name).joined(separator: " ")
            throw CLIError(.usage, Catalog.Errors.jsonNotForScreens(name))
        }
        self.init()
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let maker = try session.maker(attachingPlugins: true)
        // The screen delivers while it runs; events other processes committed while it
        // held the leases are handed on when it closes.
        session.handsOffDelivery = true
        let input = LineInput(stop: session.stopSignals(), output: session.context.console.standardOutput)
        return try show(ScreenIO(session: session, maker: maker, input: input))
    }
}
