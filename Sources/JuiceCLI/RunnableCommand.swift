import JuiceMakerCore

/// What a command needs set up before it runs.
enum CommandNeeds: Sendable {
    /// The plugins built from the config, never attached (`config check`,
    /// `config show`): building runs each plugin's own checks.
    case plugins
    /// Plugins and the store (every other command); the store opens on first use.
    case store
}

/// A command in two steps. `init` reads and checks the command line without touching
/// anything, so a bad argument exits 64 or 65 with nothing changed and no file
/// created. `run` does the work and says how the process should exit.
protocol RunnableCommand {
    static var needs: CommandNeeds { get }
    init(_ invocation: Invocation) throws(CLIError)
    /// Commands that wait on plugins (`deliver`) are async; the others satisfy this synchronously.
    func run(_ session: Session) async throws(CLIError) -> ExitCode
}

/// A command that reads no config and opens nothing (`config schema`): the runner
/// runs it before the config is read.
protocol ConfigFreeCommand {
    func run(_ output: any TextSink, registry: PluginRegistry) -> ExitCode
}

extension CommandAction {
    /// The command this action runs, its arguments checked.
    func command(_ invocation: Invocation) throws(CLIError) -> any RunnableCommand {
        switch self {
        case .menu: try MenuCommand(invocation)
        case .order: try OrderCommand(invocation)
        case .stock: try StockQuery(invocation)
        case .stockAdd, .stockRemove, .stockSet: try StockEdit(invocation)
        case .events: try EventsCommand(invocation)
        case .subscribers: try SubscribersCommand(invocation)
        case .configCheck: try ConfigCheckCommand(invocation)
        case .configShow: try ConfigShowCommand(invocation)
        case .configSchema: try ConfigSchemaCommand(invocation)
        case .shell: try ShellCommand(invocation)
        case .stockEdit: try StockScreenCommand(invocation)
        case .watch: try WatchCommand(invocation)
        case .deliver: try DeliverCommand(invocation)
        case .subscribersRetry: try SubscribersRetryCommand(invocation)
        case .report: try ReportCommand(invocation)
        case .reportPicklist: try PicklistCommand(invocation)
        case .storeCheck: try StoreCheckCommand(invocation)
        case .storeBackup: try StoreBackupCommand(invocation)
        case .storeRecover: try StoreRecoverCommand(invocation)
        }
    }
}
