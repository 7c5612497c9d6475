import JuiceMakerCore
import JuiceMakerPluginKit

/// One run of `juice`, start to exit, in this order:
/// parse the command line → check the command's values → read and check the config →
/// create the store's directory (only for a command that needs the store, `CommandNeeds`) →
/// build the plugins → run the command (the store opens on first use, plugins attach
/// before the first change) → drain the bus → shut plugins down in reverse → exit code
/// (128 + the signal when SIGINT, SIGTERM or SIGHUP stopped the command: `StopSignals`).
///
/// A failure before the command runs changes nothing: usage (64) and value (65)
/// errors are found before any file is touched, config errors (78) before the store
/// is opened.
struct Runner: Sendable {
    let arguments: [String]
    let environment: [String: String]
    let workingDirectory: String
    let standardOutput: any TextSink
    let standardError: any TextSink
    let registry: PluginRegistry
    /// The position (from 1) of the first argument that was not valid UTF-8, if any:
    /// refused (64) rather than read with U+FFFD in place of its bytes, which could
    /// name another file.
    var undecodableArgument: Int? = nil

    /// What `start` leaves to do: a command that reads the config, the store or plugins.
    enum Start: Sendable {
        case finished(ExitCode)
        case needsWork(Prepared)
    }

    /// A command line `start` checked: its global options read, its command found.
    struct Prepared: Sendable {
        let invocation: Invocation
        let settings: GlobalSettings
        let command: any JuiceCommand.Type
    }

    func run() async -> ExitCode {
        switch start() {
        case .finished(let code): return code
        case .needsWork(let prepared): return await finish(prepared)
        }
    }

    /// Everything that needs no config, store or plugin, done at once without a task:
    /// a refused argument, a usage error, `--version`, `--help`, and the config-free
    /// commands (`config schema`). Such a command never starts the concurrency runtime's
    /// threads (start-up rule "answered before the first await", the Performance article).
    func start() -> Start {
        if let position = undecodableArgument {
            let error = CLIError.usage(Catalog.Errors.notUTF8(argument: position), [CommandTable.root])
            return .finished(report(error, language: fallbackLanguage(configOption: nil)))
        }
        let parser = CommandLineParser.juice
        let outcome: ParseOutcome
        do {
            outcome = try parser.parse(arguments)
        } catch {
            return .finished(report(error, language: fallbackLanguage(configOption: nil)))
        }
        switch outcome {
        case .version:
            standardOutput.write("juice \(CommandTable.version)\n")
            return .finished(.success)
        case .help(let path):
            let language = fallbackLanguage(configOption: nil)
            let topics = path.count == 1 ? HelpTopics(registry: registry).all : []
            standardOutput.write(HelpFormatter(globalOptions: CommandTable.globalOptions, language: language).help(path, topics: topics))
            return .finished(.success)
        case .topic(let name, let command):
            let language = fallbackLanguage(configOption: nil)
            if let command {
                standardOutput.write(HelpFormatter(globalOptions: CommandTable.globalOptions, language: language).help(command) + "\n")
            }
            if let topic = HelpTopics(registry: registry).topic(named: name) {
                standardOutput.write(TopicText().render(topic))
            }
            return .finished(.success)
        case .manual:
            let page = ManualPage(
                root: CommandTable.root, globalOptions: CommandTable.globalOptions, topics: HelpTopics(registry: registry).all,
                version: CommandTable.version)
            standardOutput.write(page.render())
            return .finished(.success)
        case .run(let parsed):
            do {
                let invocation = try withImpliedGlobals(parsed, parser)
                let settings = try GlobalSettings(invocation, environment: environment)
                guard let type = invocation.command.runnable else { return .finished(.usage) }
                if let configFree = type.configFreeType {
                    return .finished(try configFree.init(invocation).run(standardOutput, registry: registry))
                }
                return .needsWork(Prepared(invocation: invocation, settings: settings, command: type))
            } catch {
                return .finished(report(error, language: fallbackLanguage(configOption: try? GlobalOptions(parsed).config.value)))
            }
        }
    }

    /// `invocation`, parsed again with the global options its command's arguments
    /// carry (`JuiceCommand.impliedGlobalArguments`) in front, when there are any.
    private func withImpliedGlobals(_ invocation: Invocation, _ parser: CommandLineParser) throws(CLIError) -> Invocation {
        guard let implied = invocation.command.runnable?.impliedGlobalArguments(invocation), !implied.isEmpty,
            case .run(let reparsed) = try parser.parse(implied + arguments)
        else { return invocation }
        return reparsed
    }

    /// Runs a command `start` left.
    func finish(_ prepared: Prepared) async -> ExitCode {
        let invocation = prepared.invocation
        // The config is read once (the file may change between two reads): by the
        // command, and reused for the language of an error; read here only when the
        // command failed before it got that far.
        var loaded = LoadedConfig.notRead
        do {
            return try await execute(prepared, loaded: &loaded)
        } catch {
            guard case .read(let config) = loaded else {
                return report(error, language: fallbackLanguage(configOption: try? GlobalOptions(invocation).config.value))
            }
            return report(error, language: fallbackLanguage(config: config))
        }
    }

    /// Whether `execute` read the config, and what it got (nil: it was refused).
    /// Not a `Result<JuiceConfig, CLIError>?` (start-up rule "no conformance lookups at
    /// start", the Performance article).
    private enum LoadedConfig {
        case notRead
        case read(JuiceConfig?)
    }

    private func execute(_ prepared: Prepared, loaded: inout LoadedConfig) async throws(CLIError) -> ExitCode {
        let (invocation, settings, type) = (prepared.invocation, prepared.settings, prepared.command)
        let command = try type.init(invocation)
        let config: JuiceConfig
        do {
            config = try loadConfig(option: settings.configPath)
            loaded = .read(config)
        } catch {
            loaded = .read(nil)
            throw error
        }
        let language = settings.language ?? config.language ?? Language(environment: environment)
        let location = StoreLocation.resolve(
            settings: settings, config: config, environment: environment, workingDirectory: workingDirectory)
        let console = Console(standardOutput: standardOutput, standardError: standardError, language: language)
        let context = CommandContext(
            invocation: invocation, settings: settings, config: config, console: console,
            registry: registry, environment: environment, location: location)
        let needsStore = type.needs == .store
        if needsStore {
            do {
                try location.prepareDirectory()
            } catch {
                throw CLIError(.storeIO, Catalog.Errors.store(error))
            }
        }
        let plugins: [BuiltPlugin]
        do {
            let deadline = ContinuousClock.now + .milliseconds(Int(config.flushDeadlineSeconds * 1000))
            plugins = try await registry.build(config, context: { context.pluginContext(for: $0) }, deadline: deadline)
        } catch {
            throw CLIError(.config, Catalog.Errors.config(error))
        }
        let session = Session(context: context, plugins: plugins, opensStore: needsStore)
        let result: Result<ExitCode, CLIError>
        do {
            result = .success(try await command.run(session))
        } catch {
            result = .failure(error)
        }
        await session.close()
        // A command stopped by a signal finished what it was doing and shut down
        // cleanly; its status says which signal (a failure keeps its own code).
        if case .success = result, let signal = session.stoppedBy, let stopped = ExitCode(stoppedBy: signal) {
            return stopped
        }
        return try result.get()
    }

    private func loadConfig(option: String?) throws(CLIError) -> JuiceConfig {
        do {
            let locator = ConfigLocator(environment: environment, workingDirectory: workingDirectory)
            let (source, text) = try locator.locate(option: option)
            return try ConfigValidator(registry: registry, source: source, environment: environment).load(text)
        } catch {
            throw CLIError(.config, Catalog.Errors.config(error))
        }
    }

    /// The language for messages before the config is known: `--lang`, else the
    /// config's `language` if it can be read, else the locale.
    private func fallbackLanguage(configOption: String?) -> Language {
        if GlobalSettings.languageHint(in: arguments) == nil, let config = try? loadConfig(option: configOption) {
            return fallbackLanguage(config: config)
        }
        return fallbackLanguage(config: nil)
    }

    /// The same, from a config already read (or none).
    private func fallbackLanguage(config: JuiceConfig?) -> Language {
        if let hinted = GlobalSettings.languageHint(in: arguments) { return hinted }
        if let language = config?.language { return language }
        return Language(environment: environment)
    }

    private func report(_ error: CLIError, language: Language) -> ExitCode {
        Console(standardOutput: standardOutput, standardError: standardError, language: language).report(error)
        return error.code
    }
}
