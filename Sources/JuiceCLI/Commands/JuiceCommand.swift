import JuiceMakerPluginKit

/// Anything with a place in `juice`'s command tree, declared once in `configuration`:
/// a command that runs (`JuiceCommand`), or a group that only holds subcommands
/// (`juice config`) and is a usage error on its own.
protocol CommandDeclaration: SendableMetatype {
    static var configuration: CommandConfiguration { get }
    /// The command that runs: `Self` for a `JuiceCommand`, `nil` for a group. A
    /// requirement rather than a cast (`as? any JuiceCommand.Type`), which would scan
    /// every protocol conformance in `juice` for each command when the tree is built
    /// (start-up rule "no conformance lookups at start", the Performance article).
    static var runnable: (any JuiceCommand.Type)? { get }
    /// The options it takes: a command's `Options`, in the order they are declared;
    /// none for a group.
    static var declaredOptions: [OptionSpec] { get }
    /// The positional arguments it takes: a command's `Options`, in order; none for a
    /// group.
    static var declaredArguments: [ArgumentSpec] { get }
}

extension CommandDeclaration {
    static var runnable: (any JuiceCommand.Type)? { nil }
    static var declaredOptions: [OptionSpec] { [] }
    static var declaredArguments: [ArgumentSpec] { [] }
}

/// What a command needs set up before it runs. The runner reads it.
enum CommandNeeds: Sendable {
    /// The plugins built from the config, never attached, and no store (`config
    /// check`, `config show`): building runs each plugin's own checks. The store's
    /// directory is not created and the session refuses to open the store.
    case plugins
    /// Plugins and the store (every other command); the store's directory is created
    /// before the plugins are built, the store opens on first use.
    case store
}

/// A command in two steps. `init` reads and checks the command line without touching
/// anything, so a bad argument exits 64 or 65 with nothing changed and no file
/// created. `run` does the work and says how the process should exit.
///
/// Adding a command is one type conforming to this (its file) and one line in its
/// parent's `subcommands` (`JuiceRoot`, or a group's declaration).
protocol JuiceCommand: CommandDeclaration {
    /// Its options, each declared once and read typed: `Options(invocation)` in `init`.
    associatedtype Options: CommandOptions = NoOptions
    /// `.store` unless declared otherwise.
    static var needs: CommandNeeds { get }
    /// Whether the command is a screen that reads the person's answers (`juice shell`,
    /// `juice stock edit`): only then may plugins ask a question. `true` for a
    /// `ScreenCommand`, `false` for any other.
    static var isScreen: Bool { get }
    init(_ invocation: Invocation) throws(CLIError)
    /// Commands that wait on plugins (`deliver`) are async; the others satisfy this synchronously.
    func run(_ session: Session) async throws(CLIError) -> ExitCode
    /// `Self` if it is a `ConfigFreeCommand`; the runner asks this rather than casting,
    /// for the reason `runnable` gives.
    static var configFreeType: (any ConfigFreeCommand.Type)? { get }
    /// Global options the command's own arguments carry, which it runs with as if they
    /// had been given before it (`juice completions complete -- --config a.json …`
    /// reads `a.json`); none for most commands.
    static func impliedGlobalArguments(_ invocation: Invocation) -> [String]
}

extension JuiceCommand {
    static var needs: CommandNeeds { .store }
    static var isScreen: Bool { false }
    static var runnable: (any JuiceCommand.Type)? { Self.self }
    static var declaredOptions: [OptionSpec] { Options.declared }
    static var declaredArguments: [ArgumentSpec] { Options.declaredArguments }
    static var configFreeType: (any ConfigFreeCommand.Type)? { nil }
    static func impliedGlobalArguments(_ invocation: Invocation) -> [String] { [] }
}

/// A command that reads no config and opens nothing (`config schema`): the runner
/// runs it before the config is read, so its `needs` is never looked at.
protocol ConfigFreeCommand: JuiceCommand {
    func run(_ output: any TextSink, registry: PluginRegistry) -> ExitCode
}

extension ConfigFreeCommand {
    static var configFreeType: (any ConfigFreeCommand.Type)? { Self.self }

    /// The runner runs a config-free command before the config is read; this is the
    /// same run for a caller that has a session.
    func run(_ session: Session) throws(CLIError) -> ExitCode {
        run(session.context.console.standardOutput, registry: session.context.registry)
    }
}
