import EventBus
import JuiceMakerCore
import JuicePrimitives

/// What every plugin is: a declared type, built from its config section. A plugin is
/// one of two kinds, each a small contract: an `EventObserver` hears events in process
/// (the logger, the CLI notifier, the metrics textfile); a `DurableDeliveryPlugin`
/// takes them durably through a destination the host delivers to (the webhook, the
/// command subscriber, the `nats` publisher).
///
/// What the host needs to know about a type (its config keys, which of them are
/// secret, its fleet role, how it renders events for a person, its start warnings)
/// is its `declaration`, which the host reads without building a plugin: not a
/// requirement each instance implements.
public protocol JuiceMakerPlugin: AnyObject, Sendable {
    /// What the host knows of this type of plugin (`PluginDeclaration.observer` or
    /// `.destination`): the config `type`, the keys, and the rest the host reads.
    static var declaration: PluginDeclaration { get }

    /// Builds the plugin from its section, already checked against the declared keys
    /// (unknown keys, types, ranges, required keys); read values through the same
    /// declarations (`configuration.string(Self.level)`), which return the declared
    /// default. Throw `ConfigurationError(path:plugin:)` (naming the field, its
    /// `PluginMessage` in both languages) to refuse it; nothing runs then.
    init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError)
}

/// A plugin that hears the maker's events in process: synchronously, on the committing
/// thread, or through its own queue (the NotificationCenter side). Four requirements:
/// `declaration` and `init(configuration:context:)` (from `JuiceMakerPlugin`), and:
///
/// 1. `attach(to:)` is called once, before the first command runs. Subscribe there
///    (`host.subscribe(context.name, …)`). Throw a `PluginError` to refuse to start;
///    the command stops then.
/// 2. Handlers run as the plugin asked: synchronous handlers on the committing
///    thread, inside the order (keep them cheap); queued ones on the plugin's own
///    serial context, in journal order. A throw is reported with the plugin's name
///    and never affects an order, another plugin or the next event.
/// 3. `shutdown(deadline:)` is awaited once before exit, after the bus has drained.
///    Flush what can be flushed before `deadline`, then return; never block past it.
///
/// An observer hears what the bus carries while it is attached; a plugin that must not
/// lose an event is a `DurableDeliveryPlugin` instead.
public protocol EventObserver: JuiceMakerPlugin {
    /// Starts listening.
    func attach(to host: PluginHost) throws(PluginError)

    /// Flushes and stops by `deadline`.
    func shutdown(deadline: ContinuousClock.Instant) async
}

extension JuiceMakerPlugin {
    /// The config `type` that selects this plugin (`declaration.type`).
    public static var type: String { declaration.type }
    /// The keys this plugin reads (`declaration.configuration`).
    public static var configuration: [ConfigurationKey] { declaration.configuration }
}

/// What the host tells a plugin about where it runs.
public struct PluginContext: Sendable {
    /// The subscriber's name: the config's `name`, or its type and position.
    public let name: String
    /// The language messages for a person must be in.
    public let language: Language
    /// Whether colour is allowed at all (`--no-color`, `NO_COLOR` turn it off).
    public let colorAllowed: Bool
    /// The directory relative paths resolve against (the store's directory).
    public let stateDirectory: String
    /// The process environment.
    public let environment: [String: String]
    /// Where output for the person goes.
    public let standardOutput: any TextSink
    /// Where diagnostics go.
    public let standardError: any TextSink
    /// Whether the person may be asked a question: a screen reads their answer next
    /// (`juice shell`). A one-shot command (`juice order`) says `false`; nobody can
    /// answer there, so a plugin states what happened instead of asking.
    public let mayAsk: Bool
    /// The gate every file a plugin opens passes through (`FileGate`): the host sets it
    /// to guard its store, so no plugin's output lands on the store or its sidecars.
    package var files = FileGate(guarding: nil)

    public init(
        name: String, language: Language, colorAllowed: Bool, stateDirectory: String,
        environment: [String: String], standardOutput: any TextSink, standardError: any TextSink,
        mayAsk: Bool = true
    ) {
        self.name = name
        self.language = language
        self.colorAllowed = colorAllowed
        self.stateDirectory = stateDirectory
        self.environment = environment
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.mayAsk = mayAsk
    }
}

/// What a plugin attaches to (an observer), or what its destination is made for (a
/// durable plugin): exactly what a plugin may do, and nothing more.
///
/// A plugin can subscribe to the maker's events and call its public commands
/// (`maker`), read the journal after a cursor and keep cursors of its own (`journal`),
/// and report a problem. It cannot publish an event or write stock or journal entries
/// directly: `JuiceMaker` keeps its bus and store private, and `journal` is a read view
/// even when the store behind it is also the writer. A durable subscriber's
/// bookkeeping (dead letters, retry state, its lease) is the host's delivery's.
public struct PluginHost: Sendable {
    /// The maker whose events the plugin hears and whose commands it may call.
    public let maker: JuiceMaker
    /// The journal's read side: events after a sequence, and named cursors.
    public var journal: any EventJournal { view }
    /// The same view with each durable subscriber's bookkeeping, which the host's
    /// delivery keeps (dead letters, retry state, leases).
    package var deliveryJournal: any DeliveryJournal { view }
    let view: JournalView
    /// Reports a plugin's problem to the person (one line, on stderr), in both
    /// languages: the host prints the one the person reads. The host puts the
    /// subscriber's name in front; the text should not repeat it.
    public let reportError: @Sendable (PluginMessage) -> Void
    /// A store failure in both languages, as the host words it, without how to fix
    /// it: for a plugin's report that quotes one.
    public let describeStoreError: @Sendable (StoreError) -> PluginMessage

    /// - Parameters:
    ///   - maker: the maker whose events the plugin hears.
    ///   - journal: the journal, handed to the plugin as a read view only.
    ///   - reportError: prints a plugin's report to the person.
    ///   - describeStoreError: by default, the store's English text in both languages;
    ///     a host that speaks Korean passes its own.
    package init(
        maker: JuiceMaker, journal: any DeliveryJournal,
        reportError: @escaping @Sendable (PluginMessage) -> Void,
        describeStoreError: @escaping @Sendable (StoreError) -> PluginMessage = { PluginMessage(untranslated: $0.detail) }
    ) {
        self.maker = maker
        self.view = JournalView(journal)
        self.reportError = reportError
        self.describeStoreError = describeStoreError
    }

    /// Subscribes to the maker's events: `maker.subscribe`, with a failure as the
    /// plugin contract throws it.
    public func subscribe(
        _ name: String,
        delivery: Delivery = .synchronous,
        kinds: Set<EventKind>? = nil,
        currentStock: (@Sendable (Stock) -> Void)? = nil,
        handler: @escaping @Sendable (EventEnvelope) throws -> Void
    ) throws(PluginError) -> Subscription {
        do throws(JuiceMakerError) {
            return try maker.subscribe(name, delivery: delivery, kinds: kinds, currentStock: currentStock, handler: handler)
        } catch {
            throw PluginError(error)
        }
    }
}
