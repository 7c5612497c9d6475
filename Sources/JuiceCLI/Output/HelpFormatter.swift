import JuiceMakerCore
import JuiceMakerPluginKit

/// Turns a `CommandSpec` into the usage line and the `--help` page, in the style of
/// swift-argument-parser: overview, usage, arguments, options, subcommands, one line each.
struct HelpFormatter: Sendable {
    let globalOptions: [OptionSpec]
    let language: Language

    /// `juice order <juice> [--count <n>]`.
    func usageLine(_ path: [CommandSpec]) -> String {
        let command = path[path.count - 1]
        var parts = [path.map(\.name).joined(separator: " ")]
        if command.hasSubcommands {
            parts.append(command.runnable == nil ? "<subcommand>" : "[<subcommand>]")
        }
        parts += command.arguments.map(\.synopsis)
        parts += command.options.map(\.usageSynopsis)
        parts.append("[<\(Catalog.Help.globalOptionsPlaceholder(language))>]")
        return parts.joined(separator: " ")
    }

    /// The two lines after a usage error: the usage line and where to find help.
    func usageFooter(_ path: [CommandSpec]) -> String {
        let name = path.map(\.name).joined(separator: " ")
        return "\(Catalog.Help.usageLabel(language)) \(usageLine(path))\n"
            + "  \(Catalog.Help.seeHelp(name)(language))\n"
    }

    /// The whole `--help` page.
    /// With `topics` (the root's page), a last section lists them for `juice help <topic>`.
    func help(_ path: [CommandSpec], topics: [HelpTopic] = []) -> String {
        let command = path[path.count - 1]
        let isRoot = path.count == 1
        var text = "\(Catalog.Help.overviewHeading(language)): \(command.abstract(language))\n\n"
        text += "\(Catalog.Help.usageHeading(language)): \(usageLine(path))\n"
        if !command.arguments.isEmpty {
            text += section(Catalog.Help.argumentsHeading(language), command.arguments.map { ($0.synopsis, $0.help(language)) })
        }
        var own = command.options.map { ($0.helpLabel, $0.help(language)) }
        if isRoot { own.append((CommandTable.versionOption.helpLabel, CommandTable.versionOption.help(language))) }
        own.append((CommandTable.helpOption.helpLabel, CommandTable.helpOption.help(language)))
        text += section(Catalog.Help.optionsHeading(language), own)
        text += section(Catalog.Help.globalOptionsHeading(language), globalOptions.map { ($0.helpLabel, $0.help(language)) })
        if command.hasSubcommands {
            text += section(Catalog.Help.subcommandsHeading(language), command.subcommands.map { ($0.name, $0.abstract(language)) })
            let name = path.map(\.name).joined(separator: " ")
            text += "\n  \(Catalog.Help.seeSubcommandHelp(name)(language))\n"
        }
        if !topics.isEmpty {
            text += section(Catalog.Help.topicsHeading(language), topics.map { ($0.name, $0.summary) })
            text += "\n  \(Catalog.Help.seeTopicHelp(language))\n"
        }
        return text
    }

    private func section(_ heading: String, _ rows: [(String, String)]) -> String {
        let width = max(24, (rows.map { TerminalText.width(of: $0.0) }.max() ?? 0) + 4)
        var text = "\n\(heading):\n"
        for (label, help) in rows {
            let cells = TerminalText.width(of: label)
            let padded = cells + 2 >= width ? "  \(label)  " : "  " + label + String(repeating: " ", count: width - cells - 2)
            text += padded + help + "\n"
        }
        return text
    }
}
