import JuiceMakerCore

/// `juice` itself: the top-level commands, in the order `--help` lists them. Adding a
/// top-level command is one line here (and its file); a subcommand is one line in its
/// group's `subcommands`.
enum JuiceRoot: CommandDeclaration {
    static let configuration = CommandConfiguration(
        commandName: "juice",
        abstract: LocalizedText(
            "Make juice from fruit in stock, and hear what happened.", ko: "재고의 과일로 쥬스를 만들고, 일어난 일을 알려 줍니다."),
        subcommands: [
            MenuCommand.self,
            OrderCommand.self,
            StockCommand.self,
            ShellCommand.self,
            WatchCommand.self,
            EventsCommand.self,
            ReportCommand.self,
            SubscribersCommand.self,
            DeliverCommand.self,
            MetricsCommand.self,
            StoreGroup.self,
            FleetGroup.self,
            ConfigGroup.self,
            CompletionsGroup.self,
        ])
}

/// The command tree derived from `JuiceRoot`'s declarations, and the options every
/// command shares.
enum CommandTable {
    /// The version `--version` prints.
    static let version = "0.1.0"

    /// Options every command accepts, before or after its name.
    static let globalOptions = GlobalOptions.declared

    /// `-h, --help`, shown at every level.
    static let helpOption = OptionSpec("help", short: "h", help: Catalog.Help.help)
    /// `--version`, shown on the root.
    static let versionOption = OptionSpec("version", help: Catalog.Help.version)

    /// Every command, from the declarations.
    static let root = CommandSpec(JuiceRoot.self)
}

/// The options every command accepts (`CommandTable.globalOptions`), read as
/// `GlobalOptions(invocation).config` (`GlobalSettings`).
struct GlobalOptions: CommandOptions {
    let config: Option<String?>
    let store: Option<String?>
    let inMemory: Option<Bool>
    let lang: Option<Language?>
    let json: Option<Bool>
    let quiet: Option<Bool>
    let noColor: Option<Bool>

    init(_ options: inout OptionList) {
        config = options.text("config", value: "path", help: Catalog.Help.config)
        store = options.text("store", value: "path", help: Catalog.Help.store)
        inMemory = options.flag("in-memory", help: Catalog.Help.inMemory)
        lang = options.value("lang", value: "ko|en", completion: .words(Language.allCases.map(\.rawValue)), help: Catalog.Help.lang) {
            code, path throws(CLIError) in
            guard let language = Language(rawValue: code) else { throw .usage(Catalog.Errors.invalidLanguage(code), path) }
            return language
        }
        json = options.flag("json", help: Catalog.Help.json)
        quiet = options.flag("quiet", short: "q", help: Catalog.Help.quiet)
        noColor = options.flag("no-color", help: Catalog.Help.noColor)
    }
}
