import JuiceMakerCore
import Locking

/// `juice stock`: each fruit and its quantity (`--json`: fruit id → quantity).
struct StockQuery: RunnableCommand {
    static let needs = CommandNeeds.store

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

/// `juice stock add|remove <fruit> <n>` and `juice stock set <fruit>=<n>…`: one atomic
/// change each. The notifier shows the changed fruits; without one the command prints
/// them on one line. `--json` prints the stock after the change.
struct StockEdit: RunnableCommand {
    static let needs = CommandNeeds.store

    private enum Change {
        case add(Fruit, Int)
        case remove(Fruit, Int)
        case set([Fruit: Int])
    }

    private let change: Change

    init(_ invocation: Invocation) throws(CLIError) {
        let words = invocation.arguments
        switch invocation.command.action {
        case .stockSet:
            var quantities: [Fruit: Int] = [:]
            for word in words {
                let (fruit, quantity) = try ValueParsing.assignment(word, path: invocation.path)
                guard quantities[fruit] == nil else { throw CLIError(.badValue, Catalog.Errors.fruitSetTwice(fruit)) }
                quantities[fruit] = quantity
            }
            change = .set(quantities)
        default:
            let amount = try ValueParsing.integer(words[1], for: "<n>", path: invocation.path)
            let fruit = try ValueParsing.fruit(words[0])
            change = invocation.command.action == .stockAdd ? .add(fruit, amount) : .remove(fruit, amount)
        }
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let maker = try session.maker(attachingPlugins: true)
        let recorder = ChangeRecorder()
        let subscription = try ValueParsing.perform(context.invocation.path) { () throws(JuiceMakerError) in
            try maker.subscribe("juice-cli", kinds: [.stockChanged]) { envelope in recorder.record(envelope) }
        }
        defer { subscription.cancel() }
        let change = self.change
        let stock = try ValueParsing.perform(context.invocation.path) { () throws(JuiceMakerError) in
            switch change {
            case let .add(fruit, amount): try maker.add(amount, of: fruit)
            case let .remove(fruit, amount): try maker.remove(amount, of: fruit)
            case let .set(quantities): try maker.set(quantities)
            }
        }
        if context.settings.json {
            StockQuery.print(stock, context: context)
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
