/// What a command declares about itself, once, in the manner of swift-argument-parser's
/// `CommandConfiguration`: its name, its one line of help in both languages and its
/// subcommands as types; its options and positional arguments are its `Options`
/// (`CommandOptions`). The parser's grammar, the usage line and `--help` are all
/// derived from these declarations (`CommandSpec`).
struct CommandConfiguration: Sendable {
    let commandName: String
    let abstract: LocalizedText
    /// The commands under this one, in the order `--help` lists them.
    let subcommands: [any CommandDeclaration.Type]

    init(commandName: String, abstract: LocalizedText, subcommands: [any CommandDeclaration.Type] = []) {
        self.commandName = commandName
        self.abstract = abstract
        self.subcommands = subcommands
    }
}

/// One option, described once (by `OptionList`): parsing, the usage line, help, the
/// man page and completions all read it.
struct OptionSpec: Sendable {
    /// The long name without dashes (`count` for `--count`).
    let name: String
    /// The one-letter alias (`h` for `-h`), if any.
    let short: Character?
    /// The value's placeholder (`n` for `--count <n>`); `nil` for a flag.
    let valueName: String?
    /// Whether the option may be given more than once (each value is kept).
    let isRepeatable: Bool
    /// Whether the command refuses to run without it (`store recover --to <file>`):
    /// usage lines show it without brackets.
    let isRequired: Bool
    let help: LocalizedText
    /// What a completion script offers for the value: files for a `path` or `file`
    /// value, the choices of a value such as `ko|en` when declared, else nothing.
    let completion: CompletionKind

    init(
        _ name: String, short: Character? = nil, value: String? = nil, repeatable: Bool = false, required: Bool = false,
        completion: CompletionKind? = nil, help: LocalizedText
    ) {
        self.name = name
        self.isRequired = required
        self.short = short
        self.valueName = value
        self.isRepeatable = repeatable
        self.help = help
        self.completion = completion ?? (value == "path" || value == "file" ? .files : .nothing)
    }

    var takesValue: Bool { valueName != nil }

    /// `synopsis` as a usage line shows it: in brackets unless required.
    var usageSynopsis: String { isRequired ? synopsis : "[\(synopsis)]" }

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
    /// What a completion script offers in this place.
    let completion: CompletionKind

    init(_ name: String, repeating: Bool = false, completion: CompletionKind = .nothing, help: LocalizedText) {
        self.name = name
        self.isRepeating = repeating
        self.help = help
        self.completion = completion
    }

    var synopsis: String { isRepeating ? "<\(name)> ..." : "<\(name)>" }
}

/// A node of the command tree as the parser, the usage line and `--help` read it,
/// derived from a declaration and its subcommands' declarations, so they cannot
/// disagree with it or with each other.
///
/// The nodes under it are made when asked for, not with it: a command line reads
/// its own path through the tree, and `juice --version` none of it, so a process
/// never builds (or runs the declarations of) the commands it does not use.
struct CommandSpec: Sendable {
    let name: String
    let abstract: LocalizedText
    /// What runs; `nil` for a group that needs a subcommand (`juice config`).
    let runnable: (any JuiceCommand.Type)?
    let arguments: [ArgumentSpec]
    let options: [OptionSpec]
    private let declarations: [any CommandDeclaration.Type]

    /// The node of `declaration`.
    init(_ declaration: any CommandDeclaration.Type) {
        let configuration = declaration.configuration
        name = configuration.commandName
        abstract = configuration.abstract
        runnable = declaration.runnable
        arguments = declaration.declaredArguments
        options = declaration.declaredOptions
        declarations = configuration.subcommands
    }

    /// The commands under this one, in the order `--help` lists them.
    var subcommands: [CommandSpec] { declarations.map(CommandSpec.init) }

    var hasSubcommands: Bool { !declarations.isEmpty }

    func subcommand(named name: String) -> CommandSpec? {
        declarations.first { $0.configuration.commandName == name }.map(CommandSpec.init)
    }
}
