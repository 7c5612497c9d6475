/// `juice(1)` in roff (the man macros), derived from the command declarations and the
/// help topics: NAME, SYNOPSIS, DESCRIPTION, COMMANDS (each command's usage, arguments
/// and options), GLOBAL OPTIONS, then every topic as its own section. `juice help --man`
/// prints it; `groff -man -Tutf8 -ww` renders it without a warning.
struct ManualPage: Sendable {
    let root: CommandSpec
    let globalOptions: [OptionSpec]
    let topics: [HelpTopic]
    let version: String

    func render() -> String {
        var page = ".TH JUICE 1 \"\" \"juice \(Self.escaped(version))\" \"User Commands\"\n"
        page += ".SH NAME\njuice \\- \(Self.escaped(root.abstract(.english)))\n"
        page += ".SH SYNOPSIS\n.B juice\n.I command\n[\\fIoptions\\fR]\n.br\n.B juice help\n[\\fIcommand\\fR|\\fItopic\\fR|\\fB\\-\\-man\\fR]\n"
        page += ".SH DESCRIPTION\n"
        page +=
            Self.escaped(
                "juice is a fruit-juice vending machine on the command line. Commands change the stock and emit typed events, "
                    + "which the subscribers chosen in the config (a logger, a notifier, webhooks, programs, a NATS stream) receive; "
                    + "queries print tables, or JSON with --json. Every message exists in English and Korean.") + "\n"
        page += ".SH COMMANDS\n"
        for path in runnablePaths(from: [root]) {
            page += command(path)
        }
        page += ".SH GLOBAL OPTIONS\n"
        for option in globalOptions + [CommandTable.helpOption, CommandTable.versionOption] {
            page += ".TP\n\(Self.option(option))\n\(Self.escaped(option.help(.english)))\n"
        }
        for topic in topics {
            page += ".SH \(Self.escaped(topic.heading))\n"
            page += blocks(topic.blocks)
        }
        page += ".SH SEE ALSO\n.BR sqlite3 (1),\n.BR nats\\-server (8)\n"
        return page
    }

    /// Every command that runs, depth first in the order `--help` lists them.
    private func runnablePaths(from path: [CommandSpec]) -> [[CommandSpec]] {
        let command = path[path.count - 1]
        var paths = command.runnable != nil && path.count > 1 ? [path] : []
        for child in command.subcommands {
            paths += runnablePaths(from: path + [child])
        }
        return paths
    }

    private func command(_ path: [CommandSpec]) -> String {
        let command = path[path.count - 1]
        var words = [path.map { "\\fB\(Self.escaped($0.name))\\fR" }.joined(separator: " ")]
        words += command.arguments.map { "\\fI\(Self.escaped($0.synopsis))\\fR" }
        words += command.options.map { $0.isRequired ? Self.option($0) : "[\(Self.option($0))]" }
        var text = ".TP\n\(words.joined(separator: " "))\n\(Self.escaped(command.abstract(.english)))\n"
        let rows =
            command.arguments.map { ("\\fI\(Self.escaped($0.synopsis))\\fR", $0.help(.english)) }
            + command.options.map { (Self.option($0), $0.help(.english)) }
        if !rows.isEmpty {
            text += ".RS\n"
            for (label, help) in rows {
                text += ".TP\n\(label)\n\(Self.escaped(help))\n"
            }
            text += ".RE\n"
        }
        return text
    }

    private func blocks(_ blocks: [HelpBlock]) -> String {
        var text = ""
        for (index, block) in blocks.enumerated() {
            switch block {
            case .paragraph(let paragraph):
                text += (index == 0 ? "" : ".PP\n") + Self.escaped(paragraph) + "\n"
            case .items(let items):
                for item in items {
                    text += ".TP\n\\fB\(Self.escaped(item.term))\\fR\n\(Self.escaped(item.text))\n"
                }
            case .literal(let lines):
                text += ".PP\n.nf\n.RS\n" + lines.map { Self.escaped($0) + "\n" }.joined() + ".RE\n.fi\n"
            }
        }
        return text
    }

    /// `\fB\-\-count\fR \fIn\fR`.
    private static func option(_ option: OptionSpec) -> String {
        var text = option.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
        text += "\\fB\\-\\-\(escaped(option.name))\\fR"
        if let value = option.valueName { text += " \\fI\(escaped(value))\\fR" }
        return text
    }

    /// `text` safe as roff input text: a backslash is `\e`, a hyphen the minus sign
    /// `\-` (options are typed with it), and a line never starts with a control
    /// character (`.` or `'`), which `\&` shields.
    static func escaped(_ text: String) -> String {
        var result = ""
        var atLineStart = true
        for character in text {
            switch character {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            case "." where atLineStart, "'" where atLineStart: result += "\\&\(character)"
            case "\n":
                result += "\n"
                atLineStart = true
                continue
            default:
                if character.asciiValue.map({ $0 < 0x20 || $0 == 0x7F }) == true {
                    result += " "
                } else {
                    result.append(character)
                }
            }
            atLineStart = false
        }
        return result
    }
}
