import JuiceMakerCore
import Locking

/// `juice stock`: each fruit and its quantity (`--json`: fruit id → quantity).
struct StockCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "stock",
        abstract: LocalizedText("Show the stock, or change it with a subcommand.", ko: "재고를 보여 주거나, 하위 명령으로 바꿉니다."),
        subcommands: [StockAddCommand.self, StockRemoveCommand.self, StockSetCommand.self, StockEditCommand.self])

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let maker = try session.maker(attachingPlugins: false)
        let stock = try ValueParsing.perform(context.invocation.path) { () throws(JuiceMakerError) in try maker.stock() }
        Self.print(stock, context: context)
        return .success
    }

    static func print(_ stock: Stock, context: CommandContext) {
        if context.settings.json {
            context.console.print(JSONWriter.compact(.amounts(stock, includingZero: true)))
            return
        }
        let language = context.language
        var rows = [[Catalog.Results.fruit(language), Catalog.Results.quantity(language)]]
        rows += Fruit.allCases.map { ["\($0.emoji) \(Catalog.Results.name($0)(language))", "\(stock[$0])"] }
        context.console.standardOutput.write(TableLayout.render(rows))
    }
}

/// `juice stock add <fruit> <n>`: one atomic change.
struct StockAddCommand: StockAmountCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: LocalizedText("Add fruit to the stock.", ko: "과일을 재고에 더합니다."))
    static let amountHelp = LocalizedText("How many to add (1 or more).", ko: "더할 개수 (1 이상).")
    static let change = StockChange.add

    let change: StockChange
}

/// `juice stock remove <fruit> <n>`: one atomic change.
struct StockRemoveCommand: StockAmountCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: LocalizedText("Remove fruit from the stock.", ko: "재고에서 과일을 뺍니다."))
    static let amountHelp = LocalizedText("How many to remove (1 up to what is in stock).", ko: "뺄 개수 (1 이상, 재고 이하).")
    static let change = StockChange.remove

    let change: StockChange
}

/// `juice stock set <fruit>=<n>…`: one atomic change of several fruits.
struct StockSetCommand: StockChangeCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: LocalizedText("Set several fruits at once, in one change.", ko: "여러 과일의 재고를 한 번에 정합니다."))

    struct Options: CommandOptions {
        let assignments: Argument<[String]>
        init(_ options: inout OptionList) {
            assignments = options.arguments(
                "fruit=n", completion: .fruitAmounts,
                help: LocalizedText(
                    "A fruit and its new quantity, e.g. strawberry=20 kiwi=5.", ko: "과일과 새 수량, 예: strawberry=20 kiwi=5."))
        }
    }

    let change: StockChange

    init(_ invocation: Invocation) throws(CLIError) {
        var quantities: [Fruit: Int] = [:]
        for word in try Options(invocation).assignments.value {
            let (fruit, quantity) = try ValueParsing.assignment(word, path: invocation.path)
            guard quantities[fruit] == nil else { throw CLIError(.badValue, Catalog.Errors.fruitSetTwice(fruit)) }
            quantities[fruit] = quantity
        }
        change = .set(quantities)
    }
}

/// A command that stores one `StockChange` (`stock add`, `stock remove`, `stock set`).
protocol StockChangeCommand: JuiceCommand {
    var change: StockChange { get }
}

extension StockChangeCommand {
    func run(_ session: Session) throws(CLIError) -> ExitCode {
        try change.run(session)
    }
}

/// `stock add` and `stock remove`: `<fruit> <n>`, the amount checked first.
protocol StockAmountCommand: StockChangeCommand where Options == StockAmountOptions<Self> {
    /// What `<fruit> <n>` asks for: `StockChange.add` or `StockChange.remove`.
    static var change: (Fruit, Int) -> StockChange { get }
    /// The help of `<n>`.
    static var amountHelp: LocalizedText { get }
    init(change: StockChange)
}

/// `<fruit>`, then `<n>` with the command's `amountHelp`.
struct StockAmountOptions<Command: StockAmountCommand>: CommandOptions {
    let fruit: Argument<Fruit>
    let amount: Argument<Int>
    init(_ options: inout OptionList) {
        fruit = options.argument(
            "fruit", completion: .fruits,
            help: LocalizedText("The fruit: an id (kiwi), English or Korean name.", ko: "과일: id (kiwi), 영어 또는 한국어 이름.")
        ) { text, _ throws(CLIError) in try ValueParsing.fruit(text) }
        amount = options.argument("n", help: Command.amountHelp) { text, path throws(CLIError) in
            try ValueParsing.integer(text, for: "<n>", minimum: 1, maximum: FruitAmounts.maximumQuantity, path: path)
        }
    }
}

extension StockAmountCommand {
    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        let amount = try options.amount.value
        let fruit = try options.fruit.value
        self.init(change: Self.change(fruit, amount))
    }
}

/// What `stock add`, `stock remove` and `stock set` store: one atomic change each. The
/// notifier shows the changed fruits; without one the command prints them on one line.
/// `--json` prints the stock after the change.
enum StockChange: Sendable {
    case add(Fruit, Int)
    case remove(Fruit, Int)
    case set([Fruit: Int])

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let maker = try session.maker(attachingPlugins: true, handingOffDelivery: true)
        let recorder = ChangeRecorder()
        let subscription = try ValueParsing.perform(context.invocation.path) { () throws(JuiceMakerError) in
            try maker.subscribe("juice-cli", kinds: [.stockChanged]) { envelope in recorder.record(envelope) }
        }
        defer { subscription.cancel() }
        let stock = try ValueParsing.perform(context.invocation.path) { () throws(JuiceMakerError) in
            switch self {
            case let .add(fruit, amount): try maker.add(amount, of: fruit)
            case let .remove(fruit, amount): try maker.remove(amount, of: fruit)
            case let .set(quantities): try maker.set(quantities)
            }
        }
        if context.settings.json {
            StockCommand.print(stock, context: context)
        } else if recorder.changes.isEmpty {
            // No event, so no notifier line either: say so once.
            if !context.settings.quiet { context.console.print(Catalog.Results.stockUnchanged) }
        } else if session.confirms(.stockChanged) {
            context.console.print(Catalog.Results.stockChanged(recorder.changes))
        }
        return .success
    }
}

/// Collects the stock changes this process published, for the one-line confirmation.
final class ChangeRecorder: Sendable {
    private let recorded = Locked<[(fruit: Fruit, from: Int, to: Int)]>([])

    func record(_ envelope: EventEnvelope) {
        guard case let .stockChanged(fruit, from, to, _) = envelope.event else { return }
        recorded.withLock { $0.append((fruit, from, to)) }
    }

    var changes: [(fruit: Fruit, from: Int, to: Int)] { recorded.withLock { $0 } }
}
