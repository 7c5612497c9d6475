import JuiceMakerCore

/// A command line after parsing: which command, its positional arguments, its options.
struct Invocation: Sendable {
    /// From the root (`juice`) to the command that runs.
    let path: [CommandSpec]
    let arguments: [String]
    /// Option values by long name, in the order given.
    private let values: [String: [String]]
    /// Flags given, by long name.
    private let flags: Set<String>

    init(path: [CommandSpec], arguments: [String], values: [String: [String]], flags: Set<String>) {
        self.path = path
        self.arguments = arguments
        self.values = values
        self.flags = flags
    }

    var command: CommandSpec { path[path.count - 1] }

    /// The words given for a declared option, in order: its values, or one empty word
    /// for a flag given (what `OptionList` binds an option to).
    func given(_ spec: OptionSpec) -> [String] {
        spec.takesValue ? values[spec.name] ?? [] : flags.contains(spec.name) ? [""] : []
    }
}

/// What the command line asks for.
enum ParseOutcome: Sendable {
    case run(Invocation)
    /// `--help`, `-h` or `juice help …`: the help of that command.
    case help([CommandSpec])
    /// `juice help <name>`: a topic's reference, after the help of the command of that
    /// name when there is one (`juice help store`).
    case topic(String, command: [CommandSpec]?)
    /// `juice help --man`: the manual page, `juice(1)`, in roff.
    case manual
    case version
}

/// Reads a command line against a `CommandSpec` tree, the way swift-argument-parser
/// does: subcommands by name, `--name value` and `--name=value`, `-h`/`--help` at
/// every level, global options anywhere, `--` ending options. A word that looks like
/// a negative number (`-3`) is a value, not an option. Short flags may be bundled
/// (`-qh` is `-q -h`; POSIX utility syntax guideline 5). An option given twice is a
/// usage error unless it is declared repeatable (`OptionSpec.isRepeatable`), which
/// keeps every value. A value-taking option followed by another option or by nothing
/// is "missing value"; an empty value (`--config=`) is refused.
///
/// `--help` and `--version` still read the rest of the line: an unknown option or a bad
/// `--lang` is reported rather than ignored, and `--version` takes no command or
/// argument (`juice --version extra` is a usage error).
///
/// Every mistake throws a usage `CLIError` naming the command whose usage applies.
package struct CommandLineParser: Sendable {
    let root: CommandSpec
    let globalOptions: [OptionSpec]

    /// The parser for `juice`'s own command table.
    package static let juice = CommandLineParser(root: CommandTable.root, globalOptions: CommandTable.globalOptions)

    init(root: CommandSpec, globalOptions: [OptionSpec]) {
        self.root = root
        self.globalOptions = globalOptions
    }

    /// Parses `words`; the result is only whether it parsed (for fuzzing and scripts).
    package func accepts(_ words: [String]) -> Bool {
        (try? parse(words)) != nil
    }

    func parse(_ words: [String]) throws(CLIError) -> ParseOutcome {
        // `juice help order …` is `juice order … --help`; global options may come first
        // (`juice --lang ko help exit-codes`).
        let helpIndex = helpWordIndex(in: words)
        var words = words
        if let helpIndex { words.remove(at: helpIndex) }
        let helpWord = helpIndex != nil
        let optionWords = words.prefix { $0 != "--" }
        // `juice help --man`: the manual page.
        let wantsManual = helpWord && optionWords.contains("--man")
        if wantsManual, let man = words.firstIndex(of: "--man") { words.remove(at: man) }
        let wantsHelp = helpWord || optionWords.contains(where: { $0 == "--help" || shortLetters($0)?.contains("h") == true })
        let wantsVersion = !wantsHelp && optionWords.contains("--version")

        var path = [root]
        var arguments: [String] = []
        var values: [String: [String]] = [:]
        var flags: Set<String> = []
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || !Self.isOption(word) {
                if !optionsEnded, arguments.isEmpty, let next = path[path.count - 1].subcommand(named: word) {
                    path.append(next)
                } else {
                    arguments.append(word)
                }
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            for use in try options(for: word, in: path) {
                let (spec, inline) = (use.spec, use.inline)
                // One place holds every command to it: an option not declared repeatable
                // is given once.
                if !spec.isRepeatable, flags.contains(spec.name) || values[spec.name] != nil {
                    throw .usage(Catalog.Errors.repeatedOption(spec.synopsis), path)
                }
                if !spec.takesValue {
                    guard inline == nil else { throw .usage(Catalog.Errors.flagTakesNoValue("--\(spec.name)"), path) }
                    flags.insert(spec.name)
                    continue
                }
                let value: String
                if let inline {
                    value = inline
                } else if index < words.count, words[index] != "--", !Self.isOption(words[index]) {
                    value = words[index]
                    index += 1
                } else {
                    throw .usage(Catalog.Errors.missingValue(spec.synopsis), path)
                }
                guard !value.isEmpty else { throw .usage(Catalog.Errors.emptyValue(spec.synopsis, isPath: spec.valueName == "path"), path) }
                if spec.isRepeatable {
                    values[spec.name, default: []].append(value)
                } else {
                    values[spec.name] = [value]
                }
            }
        }
        let invocation = Invocation(path: path, arguments: arguments, values: values, flags: flags)
        // A bad `--lang` is reported beside `--help` and `--version` too.
        _ = try GlobalOptions(invocation).lang.value
        if helpWord { return try helpRequest(path: path, arguments: arguments, manual: wantsManual) }
        if wantsHelp { return .help(path) }
        if wantsVersion {
            // `--version` is the whole request: a command or argument beside it is a mistake.
            if let extra = path.count > 1 ? path[1].name : arguments.first {
                throw .usage(Catalog.Errors.unexpectedArgument(extra), [root])
            }
            return .version
        }
        try check(arguments, against: path)
        return .run(invocation)
    }

    /// Where the word `help` is, when it is the first word that is not an option or an
    /// option's value (`juice --store s.db help config`), before any `--`.
    private func helpWordIndex(in words: [String]) -> Int? {
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == "--" { return nil }
            guard Self.isOption(word) else { return word == "help" ? index : nil }
            index += 1
            // A global option's value is the next word unless it is attached.
            if word.hasPrefix("--") {
                let name = word.dropFirst(2)
                if !name.contains("="), globalOptions.contains(where: { $0.name == name && $0.takesValue }) { index += 1 }
            } else if let last = shortLetters(word)?.last, word.count == 2,
                globalOptions.contains(where: { $0.short == last && $0.takesValue })
            {
                index += 1
            }
        }
        return nil
    }

    /// `juice help …` read: the manual (`--man`), a topic (`juice help exit-codes`, or
    /// `juice help store`, the command's help then the topic's), or a command's help.
    /// A word that names neither a topic nor a command is a usage error.
    private func helpRequest(path: [CommandSpec], arguments: [String], manual: Bool) throws(CLIError) -> ParseOutcome {
        if manual {
            if let extra = path.count > 1 ? path[1].name : arguments.first {
                throw .usage(Catalog.Errors.unexpectedArgument(extra), [root])
            }
            return .manual
        }
        if path.count == 1, arguments.count == 1, HelpTopics.names.contains(arguments[0]) {
            return .topic(arguments[0], command: nil)
        }
        if path.count == 2, arguments.isEmpty, HelpTopics.names.contains(path[1].name) {
            return .topic(path[1].name, command: path)
        }
        guard let unknown = arguments.first else { return .help(path) }
        let command = path[path.count - 1]
        let commands = command.subcommands.map(\.name)
        guard path.count == 1 else {
            throw .usage(
                Catalog.Errors.unknownHelpCommand(
                    unknown, in: commandName(path), suggestion: NameSuggestion.closest(to: unknown, among: commands), commands: commands),
                path)
        }
        let topics = HelpTopics.names.sorted()
        let suggestion = NameSuggestion.closest(to: unknown, among: commands + topics)
        throw .usage(Catalog.Errors.unknownHelpTopic(unknown, suggestion: suggestion, topics: topics), path)
    }

    /// An option word: starts with `-`, is not `-` alone, and is not a negative number
    /// (the completer reads words by the same rule).
    static func isOption(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word.count > 1 else { return false }
        let rest = word.dropFirst()
        return !(rest.first?.isNumber ?? false)
    }

    /// The letters of a short-option word (`-qh` → `q`, `h`), or nil for any other word.
    private func shortLetters(_ word: String) -> [Character]? {
        guard Self.isOption(word), !word.hasPrefix("--") else { return nil }
        return Array(word.dropFirst())
    }

    /// The options `word` names, each with its `=value` or attached value, if any.
    /// In a bundle of short options, one that takes a value takes the rest of the word
    /// (`-ofile`), or the next word when it is last (POSIX guideline 5).
    private func options(for word: String, in path: [CommandSpec]) throws(CLIError) -> [OptionUse] {
        let command = path[path.count - 1]
        if word.hasPrefix("--") {
            let body = word.dropFirst(2)
            let name = body.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            if let spec = knownOption(of: command, where: { $0.name == name }) { return [OptionUse(spec: spec, inline: inline)] }
            throw .usage(Catalog.Errors.unknownOption(word.split(separator: "=").first.map(String.init) ?? word), path)
        }
        var found: [OptionUse] = []
        var letters = word.dropFirst()
        while let letter = letters.popFirst() {
            guard let spec = knownOption(of: command, where: { $0.short == letter }) else {
                throw .usage(Catalog.Errors.unknownOption("-\(letter)"), path)
            }
            if spec.takesValue, !letters.isEmpty {
                found.append(OptionUse(spec: spec, inline: String(letters)))
                break
            }
            found.append(OptionUse(spec: spec, inline: nil))
        }
        return found
    }

    /// One option a word names, with its `=value` or attached value, if any.
    private struct OptionUse {
        let spec: OptionSpec
        let inline: String?
    }

    /// The first option `matches` accepts among what `command` knows: its own options,
    /// then the global ones, then `--help` and `--version`. Looked up in place: a command
    /// line is parsed once per process, and the lists are short.
    private func knownOption(of command: CommandSpec, where matches: (OptionSpec) -> Bool) -> OptionSpec? {
        if let own = command.options.first(where: matches) { return own }
        if let global = globalOptions.first(where: matches) { return global }
        if matches(CommandTable.helpOption) { return CommandTable.helpOption }
        return matches(CommandTable.versionOption) ? CommandTable.versionOption : nil
    }

    private func check(_ arguments: [String], against path: [CommandSpec]) throws(CLIError) {
        let command = path[path.count - 1]
        guard command.runnable != nil else {
            if let first = arguments.first {
                throw .usage(Catalog.Errors.unknownCommand(first, in: commandName(path), suggestion: suggestion(for: first, in: command)), path)
            }
            throw .usage(Catalog.Errors.missingCommand(commandName(path)), path)
        }
        let required = command.arguments
        for (position, spec) in required.enumerated() where position >= arguments.count {
            throw .usage(Catalog.Errors.missingArgument(spec.synopsis), path)
        }
        let accepts = required.last?.isRepeating == true ? Int.max : required.count
        if arguments.count > accepts {
            let extra = arguments[accepts]
            if required.isEmpty, command.hasSubcommands {
                throw .usage(Catalog.Errors.unknownCommand(extra, in: commandName(path), suggestion: suggestion(for: extra, in: command)), path)
            }
            throw .usage(Catalog.Errors.unexpectedArgument(extra), path)
        }
    }

    /// The subcommand of `command` whose name `word` is a typo of (`ordr` → `order`).
    private func suggestion(for word: String, in command: CommandSpec) -> String? {
        NameSuggestion.closest(to: word, among: command.subcommands.map(\.name))
    }

    func commandName(_ path: [CommandSpec]) -> String {
        path.map(\.name).joined(separator: " ")
    }
}
