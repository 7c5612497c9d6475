/// What to offer for the word under the cursor, read from the command declarations the
/// parser reads (`CommandSpec`), so completion knows exactly the commands and options
/// `juice` accepts. The shell scripts (`CompletionScripts`) hand it the words typed so far
/// and show its answer.
struct Completer: Sendable {
    let root: CommandSpec
    let globalOptions: [OptionSpec]

    /// The answer for one Tab.
    enum Reply: Sendable, Equatable {
        /// These words; `spaceAfter` is false when the word goes on (`kiwi=`).
        case words([String], spaceAfter: Bool)
        /// File names, which the shell completes itself.
        case files
    }

    /// `words` are what follows `juice` on the line, the last being the word under the
    /// cursor (empty after a space). `subscribers` gives the config's names, asked only
    /// where a subscriber's name goes.
    func reply(_ words: [String], subscribers: () -> [String]) -> Reply {
        let current = words.last ?? ""
        var path = [root]
        var arguments = 0
        var pendingValue: OptionSpec?
        var optionsEnded = false
        for word in words.dropLast() {
            if pendingValue != nil {
                pendingValue = nil
                continue
            }
            if !optionsEnded, word == "--" {
                optionsEnded = true
            } else if !optionsEnded, CommandLineParser.isOption(word) {
                pendingValue = valueTaker(word, in: path[path.count - 1])
            } else if arguments == 0, let next = path[path.count - 1].subcommand(named: word) {
                path.append(next)
            } else {
                arguments += 1
            }
        }
        let command = path[path.count - 1]
        if let option = pendingValue {
            return answer(option.completion, current, subscribers)
        }
        if !optionsEnded, current.hasPrefix("--"), let equals = current.firstIndex(of: "="),
            let option = valueTaker(String(current[..<equals]), in: command)
        {
            // `--store=pa`: the shell completes the part after `=` (bash splits the word there).
            return answer(option.completion, String(current[current.index(after: equals)...]), subscribers)
        }
        if !optionsEnded, current.hasPrefix("-") {
            let names = options(of: command, isRoot: path.count == 1).map { "--\($0.name)" }
            return .words(names.filter { $0.hasPrefix(current) }, spaceAfter: true)
        }
        if arguments == 0, command.hasSubcommands {
            let names = command.subcommands.map(\.name).filter { $0.hasPrefix(current) }
            if !names.isEmpty || command.arguments.isEmpty { return .words(names, spaceAfter: true) }
        }
        let declared = command.arguments
        guard let last = declared.last else { return .words([], spaceAfter: true) }
        let argument = arguments < declared.count ? declared[arguments] : (last.isRepeating ? last : nil)
        guard let argument else { return .words([], spaceAfter: true) }
        return answer(argument.completion, current, subscribers)
    }

    private func answer(_ kind: CompletionKind, _ current: String, _ subscribers: () -> [String]) -> Reply {
        if kind == .files { return .files }
        let configured = kind == .subscribers ? subscribers() : []
        let words = kind.candidates(configured: configured).filter { $0.hasPrefix(current) }
        return .words(words, spaceAfter: kind != .fruitAmounts)
    }

    /// The options `command` accepts, as `--help` lists them.
    private func options(of command: CommandSpec, isRoot: Bool) -> [OptionSpec] {
        command.options + globalOptions + [CommandTable.helpOption] + (isRoot ? [CommandTable.versionOption] : [])
    }

    /// The option whose value the next word is: `--store` (not `--store=x`), or a short
    /// bundle whose last letter takes a value.
    private func valueTaker(_ word: String, in command: CommandSpec) -> OptionSpec? {
        let known = options(of: command, isRoot: false) + [CommandTable.versionOption]
        if word.hasPrefix("--") {
            guard !word.utf8.contains(UInt8(ascii: "=")) else { return nil }
            return known.first { "--\($0.name)" == word && $0.takesValue }
        }
        guard let letter = word.last, word.count == 2 else { return nil }
        return known.first { $0.short == letter && $0.takesValue }
    }
}
