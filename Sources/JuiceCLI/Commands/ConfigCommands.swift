import JuiceJSON
import JuiceMakerPluginKit

/// `juice config`: a group only; on its own a usage error that lists its subcommands.
enum ConfigGroup: CommandDeclaration {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: LocalizedText(
            "Check or show the config, or print its JSON Schema.", ko: "설정을 검사하거나 보여 주거나, 그 JSON Schema를 출력합니다."),
        subcommands: [ConfigCheckCommand.self, ConfigShowCommand.self, ConfigSchemaCommand.self])
}

/// `juice config check`: the config was read and checked before any command runs, and
/// every enabled subscriber was built from it; reaching `run` means it is valid.
struct ConfigCheckCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: LocalizedText("Check the config and the subscribers it builds.", ko: "설정과 그것으로 만드는 구독자를 검사합니다."))
    static let needs = CommandNeeds.plugins

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        // What `juice fleet` would refuse at its start: an unreadable `fleet.credentials`,
        // a subject prefix or stream name NATS cannot take.
        _ = try FleetCommandSupport.credentials(context)
        _ = try FleetCommandSupport.tlsFiles(context)
        _ = try FleetCommandSupport.subjectPrefixAndStream(context)
        // A fleet section means juice fleet deliver runs here: its window check too.
        if context.config.fleet != nil { try FleetCommandSupport.checkWindows(FleetCommandSupport.fedPlugins(session), context: context) }
        let source = ConfigShowCommand.sourceName(context)
        let names = context.config.subscribers.map(\.name)
        // `${NAME}`s missing in disabled subscribers: not errors (nothing runs them),
        // but this is the command that says what would break on enabling them.
        let warnings = context.config.warnings
        for warning in warnings {
            context.console.standardError.write("juice: \(Catalog.Results.configWarning(warning)(context.language))\n")
        }
        // What an enabled subscriber would warn about when it starts (plain http:// to
        // another machine): said here too, as a warning; the config is still valid.
        let startWarnings = session.builtPlugins.flatMap { built in
            built.startWarnings.map { Catalog.Errors.subscriberReport(built.entry.name, $0) }
        }
        for warning in startWarnings {
            context.console.standardError.write("juice: \(TerminalText.escaped(warning(context.language)))\n")
        }
        context.printResult(
            json: .object([
                ("valid", .bool(true)),
                ("file", context.config.source.file.map(JSONValue.string) ?? .null),
                ("subscribers", .array(names.map(JSONValue.string))),
                ("warnings", .array(warnings.map { .string($0.description) } + startWarnings.map { .string($0(.english)) })),
            ]),
            lines: [Catalog.Results.configValid(source, subscribers: names)(context.language)])
        return .success
    }
}

/// `juice config schema`: the config's JSON Schema, generated from the declarations
/// (`ConfigSchema`). It needs no config: it runs even when the config is broken.
struct ConfigSchemaCommand: JuiceCommand, ConfigFreeCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: LocalizedText(
            "Print the config's JSON Schema (draft 2020-12), made from the keys juice checks.",
            ko: "설정의 JSON Schema(draft 2020-12)를 출력합니다. juice가 검사하는 키로 만듭니다."))

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ output: any TextSink, registry: PluginRegistry) -> ExitCode {
        output.write(ConfigSchema.text(registry))
        return .success
    }

}

/// `juice config show`: the effective config (every key, defaults filled in, the
/// store that would be used), where each value came from, and the file it was read
/// from, once it passed every check `config check` makes (exit 78 otherwise).
/// Secrets never appear (`EffectiveConfig`).
struct ConfigShowCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: LocalizedText(
            "Show the effective config, where each value came from, and the file (secrets as ***).",
            ko: "적용된 설정과 각 값의 출처, 그 파일을 보여 줍니다 (비밀 값은 ***)."))
    static let needs = CommandNeeds.plugins

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let effective = EffectiveConfig(context)
        if context.settings.json {
            context.console.print(
                JSONWriter.compact(
                    .object([
                        ("file", context.config.source.file.map(JSONValue.string) ?? .null),
                        ("config", effective.document),
                        ("from", .object(effective.origins.map { ($0.path, .string($0.origin.rawValue)) })),
                    ])))
        } else {
            let language = context.language
            context.console.print(Catalog.Results.configFile(Self.sourceName(context)))
            context.console.print(JSONWriter.pretty(effective.document))
            let rows = effective.origins.map { ["  " + $0.path, Catalog.Results.configOrigin($0.origin)(language)] }
            context.console.standardOutput.write(Catalog.Results.configOrigins(language) + "\n" + TableLayout.render(rows))
        }
        return .success
    }

    static func sourceName(_ context: CommandContext) -> String {
        context.config.source.file ?? Catalog.Results.builtInDefaults(context.language)
    }
}
