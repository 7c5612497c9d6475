import JuiceMakerCore

/// `juice config check`: the config was read and checked before any command runs, and
/// every enabled subscriber was built from it; reaching `run` means it is valid.
struct ConfigCheckCommand: RunnableCommand {
    static let needs = CommandNeeds.plugins

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let source = ConfigShowCommand.sourceName(context)
        let names = context.config.subscribers.map(\.name)
        // `${NAME}`s missing in disabled subscribers: not errors (nothing runs them),
        // but this is the command that says what would break on enabling them.
        let warnings = context.config.warnings
        for warning in warnings {
            context.console.standardError.write("juice: \(Catalog.Results.configWarning(warning)(context.language))\n")
        }
        if context.settings.json {
            context.console.print(JSONWriter.compact(.object([
                ("valid", .bool(true)),
                ("file", context.config.source.file.map(ConfigValue.string) ?? .null),
                ("subscribers", .array(names.map(ConfigValue.string))),
                ("warnings", .array(warnings.map { .string($0.description) })),
            ])))
        } else if !context.settings.quiet {
            context.console.print(Catalog.Results.configValid(source, subscribers: names))
        }
        return .success
    }
}

/// `juice config schema`: the config's JSON Schema, generated from the declarations
/// (`ConfigSchema`). It needs no config: it runs even when the config is broken.
struct ConfigSchemaCommand: RunnableCommand, ConfigFreeCommand {
    static let needs = CommandNeeds.plugins

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ output: any TextSink, registry: PluginRegistry) -> ExitCode {
        output.write(ConfigSchema.text(registry))
        return .success
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        run(session.context.console.standardOutput, registry: session.context.registry)
    }
}

/// `juice config show`: the effective config (defaults filled in, the store that
/// would be used) and the file it came from, once it passed every check `config
/// check` makes (exit 78 otherwise). Secrets never appear: values taken from
/// `${NAME}`, values of secret-like keys and a URL's `user:password@` print as `***`.
struct ConfigShowCommand: RunnableCommand {
    static let needs = CommandNeeds.plugins
    static let mask = ConfigValue.string("***")

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let document = Self.effective(context)
        if context.settings.json {
            context.console.print(JSONWriter.compact(.object([
                ("file", context.config.source.file.map(ConfigValue.string) ?? .null),
                ("config", document),
            ])))
        } else {
            context.console.print(Catalog.Results.configFile(Self.sourceName(context)))
            context.console.print(JSONWriter.pretty(document))
        }
        return .success
    }

    static func sourceName(_ context: CommandContext) -> String {
        context.config.source.file ?? Catalog.Results.builtInDefaults(context.language)
    }

    static func effective(_ context: CommandContext) -> ConfigValue {
        let config = context.config
        let subscribers = config.subscribers.map { entry -> ConfigValue in
            func substituted(_ path: String) -> Bool {
                config.substitutedPaths.contains { $0 == path || $0.hasPrefix(path + "[") || $0.hasPrefix(path + ".") }
            }
            let name: ConfigValue = substituted("\(entry.path).name") ? mask : .string(entry.name)
            var members: [(key: String, value: ConfigValue)] = [
                ("type", .string(entry.type)), ("name", name), ("enabled", .bool(entry.enabled)),
            ]
            for (key, value) in entry.configuration.values {
                let hidden = isSecret(key) || substituted("\(entry.path).\(key)")
                members.append((key, hidden ? mask : value.map(URLCredentials.redacted)))
            }
            return .object(members)
        }
        return .object([
            ("language", .string(config.language?.rawValue ?? "auto")),
            ("initialStock", .integer(config.initialStock)),
            ("store", .object([("path", .string(context.location.displayPath)), ("durability", .string(config.durability.rawValue))])),
            ("flushDeadlineSeconds", .number(config.flushDeadlineSeconds)),
            ("subscribers", .array(subscribers)),
        ])
    }

    static func isSecret(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return ConfigKeys.secretWords.contains { lowered.contains($0) }
    }
}
