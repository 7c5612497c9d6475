/// Every command and option of `juice`, described once.
enum CommandTable {
    /// The version `--version` prints.
    static let version = "0.1.0"

    /// Options every command accepts, before or after its name.
    static let globalOptions: [OptionSpec] = [
        OptionSpec("config", value: "path", help: Catalog.Help.config),
        OptionSpec("store", value: "path", help: Catalog.Help.store),
        OptionSpec("in-memory", help: Catalog.Help.inMemory),
        OptionSpec("lang", value: "ko|en", help: Catalog.Help.lang),
        OptionSpec("json", help: Catalog.Help.json),
        OptionSpec("quiet", short: "q", help: Catalog.Help.quiet),
        OptionSpec("no-color", help: Catalog.Help.noColor),
    ]

    /// `-h, --help`, shown at every level.
    static let helpOption = OptionSpec("help", short: "h", help: Catalog.Help.help)
    /// `--version`, shown on the root.
    static let versionOption = OptionSpec("version", help: Catalog.Help.version)

    static let root = CommandSpec(
        "juice", abstract: Catalog.Help.root, action: nil,
        subcommands: [
            CommandSpec("menu", abstract: Catalog.Help.menu, action: .menu),
            CommandSpec(
                "order", abstract: Catalog.Help.order, action: .order,
                arguments: [ArgumentSpec("juice", help: Catalog.Help.juiceArgument)],
                options: [OptionSpec("count", value: "n", help: Catalog.Help.count)]),
            CommandSpec(
                "stock", abstract: Catalog.Help.stock, action: .stock,
                subcommands: [
                    CommandSpec(
                        "add", abstract: Catalog.Help.stockAdd, action: .stockAdd,
                        arguments: [
                            ArgumentSpec("fruit", help: Catalog.Help.fruitArgument),
                            ArgumentSpec("n", help: Catalog.Help.addAmount),
                        ]),
                    CommandSpec(
                        "remove", abstract: Catalog.Help.stockRemove, action: .stockRemove,
                        arguments: [
                            ArgumentSpec("fruit", help: Catalog.Help.fruitArgument),
                            ArgumentSpec("n", help: Catalog.Help.removeAmount),
                        ]),
                    CommandSpec(
                        "set", abstract: Catalog.Help.stockSet, action: .stockSet,
                        arguments: [ArgumentSpec("fruit=n", repeating: true, help: Catalog.Help.assignment)]),
                    CommandSpec("edit", abstract: Catalog.Screens.stockEdit, action: .stockEdit),
                ]),
            CommandSpec("shell", abstract: Catalog.Screens.shell, action: .shell),
            CommandSpec(
                "watch", abstract: Catalog.Screens.watch, action: .watch,
                options: [
                    OptionSpec("since", value: "sequence", help: Catalog.Screens.watchSince),
                    OptionSpec("type", value: "type", repeatable: true, help: Catalog.Help.type),
                ]),
            CommandSpec(
                "events", abstract: Catalog.Help.events, action: .events,
                options: [
                    OptionSpec("since", value: "sequence", help: Catalog.Help.since),
                    OptionSpec("type", value: "type", repeatable: true, help: Catalog.Help.type),
                    OptionSpec("limit", value: "n", help: Catalog.Help.limit),
                ]),
            CommandSpec(
                "report", abstract: Catalog.Report.command, action: .report,
                options: [
                    OptionSpec("since", value: "24h|7d|30d|date", help: Catalog.Report.sinceOption),
                    OptionSpec("by", value: "hour|day|week", help: Catalog.Report.byOption),
                    OptionSpec("at", value: "time", help: Catalog.Report.atOption),
                    OptionSpec("svg", value: "file", help: Catalog.Report.svgOption),
                    OptionSpec("ascii", help: Catalog.Report.asciiOption),
                ],
                subcommands: [
                    CommandSpec(
                        "picklist", abstract: Catalog.Report.picklist, action: .reportPicklist,
                        options: [
                            OptionSpec("cover", value: "12h|2d|1w", help: Catalog.Report.coverOption),
                            OptionSpec("target", value: "n", help: Catalog.Report.targetOption),
                            OptionSpec("since", value: "24h|7d|30d|date", help: Catalog.Report.sinceOption),
                            OptionSpec("at", value: "time", help: Catalog.Report.atOption),
                        ]),
                ]),
            CommandSpec(
                "subscribers", abstract: Catalog.Help.subscribers, action: .subscribers,
                subcommands: [
                    CommandSpec(
                        "retry", abstract: Catalog.Delivery.retry, action: .subscribersRetry,
                        arguments: [ArgumentSpec("name", help: Catalog.Delivery.nameArgument)],
                        options: [OptionSpec("dead-letters", help: Catalog.Delivery.deadLettersOption)]),
                ]),
            CommandSpec(
                "deliver", abstract: Catalog.Delivery.deliver, action: .deliver,
                options: [OptionSpec("follow", help: Catalog.Delivery.follow)]),
            StoreCommandSupport.spec,
            CommandSpec(
                "config", abstract: Catalog.Help.configGroup, action: nil,
                subcommands: [
                    CommandSpec("check", abstract: Catalog.Help.configCheck, action: .configCheck),
                    CommandSpec("show", abstract: Catalog.Help.configShow, action: .configShow),
                    CommandSpec("schema", abstract: Catalog.Help.configSchema, action: .configSchema),
                ]),
        ])
}
