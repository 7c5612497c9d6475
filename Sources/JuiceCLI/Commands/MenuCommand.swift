import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit

/// `juice menu`: each juice, its recipe and how many the stock can make now.
/// `--json`: an array of `{"juice","name","recipe","available"}`.
struct MenuCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "menu",
        abstract: LocalizedText(
            "Show each juice, its recipe and how many can be made now.", ko: "쥬스마다 레시피와 지금 만들 수 있는 잔 수를 보여 줍니다."))

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let language = context.language
        let maker = try session.maker(attachingPlugins: false)
        let stock = try ValueParsing.perform(context.invocation.path) { () throws(JuiceMakerError) in try maker.stock() }
        if context.settings.json {
            let items = Juice.allCases.map { juice -> JSONValue in
                .object([
                    ("juice", .string(juice.id)),
                    ("name", .string(Catalog.Results.name(juice)(language))),
                    ("recipe", .amounts(juice.recipe, includingZero: false)),
                    ("available", .integer(juice.servings(from: stock))),
                ])
            }
            context.console.print(JSONWriter.compact(.array(items)))
            return .success
        }
        var rows = [[Catalog.Results.juice(language), Catalog.Results.recipeHeading(language), Catalog.Results.canMake(language)]]
        rows += Juice.allCases.map { juice in
            [Self.label(juice, language), Catalog.Results.recipe(juice)(language), "\(juice.servings(from: stock))"]
        }
        context.console.standardOutput.write(TableLayout.render(rows))
        return .success
    }

    /// The juice's name, with the id to type when the name does not already say it.
    private static func label(_ juice: Juice, _ language: Language) -> String {
        let name = Catalog.Results.name(juice)(language)
        return name == "\(juice.id) juice" ? name : "\(name) (\(juice.id))"
    }
}
