import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit

/// `juice order <juice> [--count N]`: makes the juice or, if the fruit is not enough,
/// nothing (exit 1). The notifier shows the outcome; the command prints it only when
/// no notifier does (and not with `--quiet`). `--json` prints the typed result.
/// A failed order never asks a question (nobody answers one here): it says what is
/// short and the command that adds it; under `--quiet`, one line on stderr.
struct OrderCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "order",
        abstract: LocalizedText("Make a juice (exit 1 when the fruit is not enough).", ko: "쥬스를 만듭니다 (과일이 모자라면 종료 코드 1)."))

    struct Options: CommandOptions {
        let juice: Argument<Juice>
        let count: Option<Int?>
        init(_ options: inout OptionList) {
            juice = options.argument(
                "juice", completion: .juices,
                help: LocalizedText(
                    "The juice: an id (mango-kiwi), English or Korean name.", ko: "쥬스: id (mango-kiwi), 영어 또는 한국어 이름.")
            ) { text, _ throws(CLIError) in try ValueParsing.juice(text) }
            count = options.wholeNumber(
                "count", value: "n", help: LocalizedText("How many juices to make (default: 1).", ko: "만들 잔 수 (기본값: 1)."))
        }
    }

    let juice: Juice
    let count: Int

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        // The shape of --count first (a usage error), then the juice, then the count's range for it:
        // at most what a full stock of each fruit makes.
        let count = try options.count.value ?? 1
        let juice = try options.juice.value
        let text = options.count.text ?? "1"
        guard count >= 1 else { throw CLIError(.badValue, Catalog.Errors.countTooSmall(text)) }
        guard count <= juice.largestOrder else {
            throw CLIError(.badValue, Catalog.Errors.countAboveMaximum(juice, text, maximum: juice.largestOrder))
        }
        self.juice = juice
        self.count = count
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let maker = try session.maker(attachingPlugins: true, handingOffDelivery: true)
        let (juice, count) = (self.juice, self.count)
        let receipt = try ValueParsing.perform(context.invocation.path) { () throws(JuiceMakerError) in
            try maker.order(juice, count: count)
        }
        if context.settings.json {
            context.console.print(JSONWriter.compact(Self.json(juice: juice, count: count, result: receipt.result, stock: receipt.stock)))
        }
        switch receipt.result {
        case .made:
            if session.confirms(.juiceMade) {
                context.console.print(Catalog.Results.orderMade(juice, count: count))
            }
            return .success
        case .insufficient(let shortages):
            let stock = receipt.stock
            if context.settings.quiet {
                context.console.report(CLIError(.orderNotMade, Catalog.Results.orderNotMade(juice, count: count, shortages: shortages, stock: stock)))
            } else if session.confirms(.orderFailed) {
                context.console.print(Catalog.Results.orderFailed(shortages, stock: stock))
            } else if !context.settings.json {
                // The notifier showed the alert and the shortages: add the fix.
                context.console.print(Catalog.Results.orderFix(shortages, stock: stock))
            }
            return .orderNotMade
        }
    }

    /// `{"juice":"mango-kiwi","count":1,"result":"made","consumed":{…},"stock":{…}}`,
    /// or `"result":"insufficient","shortages":{…}`.
    static func json(juice: Juice, count: Int, result: OrderResult, stock: Stock) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("juice", .string(juice.id)), ("count", .integer(count))]
        switch result {
        case .made(let consumed):
            members += [("result", .string("made")), ("consumed", .amounts(consumed, includingZero: false))]
        case .insufficient(let shortages):
            members += [("result", .string("insufficient")), ("shortages", .amounts(shortages, includingZero: false))]
        }
        members.append(("stock", .amounts(stock, includingZero: true)))
        return .object(members)
    }
}
