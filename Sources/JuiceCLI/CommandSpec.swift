/// What a command does when it runs. The dispatcher maps each case to its code.
enum CommandAction: Sendable {
    case menu, order, stock, stockAdd, stockRemove, stockSet, events, subscribers, configCheck, configShow, configSchema
    case shell, stockEdit, watch
    case deliver, subscribersRetry
    case report, reportPicklist
    case storeCheck, storeBackup, storeRecover
}

/// One option, described once: parsing, the usage line and help all read it.
struct OptionSpec: Sendable {
    /// The long name without dashes (`count` for `--count`).
    let name: String
    /// The one-letter alias (`h` for `-h`), if any.
    let short: Character?
    /// The value's placeholder (`n` for `--count <n>`); `nil` for a flag.
    let valueName: String?
    /// Whether the option may be given more than once (each value is kept).
    let isRepeatable: Bool
    let help: LocalizedText

    init(_ name: String, short: Character? = nil, value: String? = nil, repeatable: Bool = false, help: LocalizedText) {
        self.name = name
        self.short = short
        self.valueName = value
        self.isRepeatable = repeatable
        self.help = help
    }

    var takesValue: Bool { valueName != nil }

    /// `--count <n>` or `--json`.
    var synopsis: String {
        valueName.map { "--\(name) <\($0)>" } ?? "--\(name)"
    }

    /// `-q, --quiet` for help listings.
    var helpLabel: String {
        short.map { "-\($0), \(synopsis)" } ?? synopsis
    }
}

/// One positional argument (`<juice>`, or `<fruit=n>...` when repeating).
struct ArgumentSpec: Sendable {
    let name: String
    /// Takes every remaining argument (at least one).
    let isRepeating: Bool
    let help: LocalizedText

    init(_ name: String, repeating: Bool = false, help: LocalizedText) {
        self.name = name
        self.isRepeating = repeating
        self.help = help
    }

    var synopsis: String { isRepeating ? "<\(name)> ..." : "<\(name)>" }
}

/// A command as described once. The parser, the usage line and `--help` all come from
/// this value, so they cannot disagree.
struct CommandSpec: Sendable {
    let name: String
    let abstract: LocalizedText
    /// What runs; `nil` for a group that needs a subcommand (`juice config`).
    let action: CommandAction?
    let arguments: [ArgumentSpec]
    let options: [OptionSpec]
    let subcommands: [CommandSpec]

    init(
        _ name: String, abstract: LocalizedText, action: CommandAction?,
        arguments: [ArgumentSpec] = [], options: [OptionSpec] = [], subcommands: [CommandSpec] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.action = action
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
    }

    func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}
