import EventBus
import JuiceMakerCore
import JuicePrimitives

/// A front-end module that hears the juice maker's events: the extension point.
///
/// The host (the `juice` CLI's registry) guarantees, in this order:
/// 1. `init(configuration:context:)` is called once with the plugin's config
///    section, already checked against `configuration` (unknown keys, types,
///    ranges, required keys); read values through the same declarations
///    (`configuration.string(Self.level)`), which return the declared default.
///    Throw `ConfigurationError(path:plugin:)` (naming the field, its `PluginMessage`
///    in both languages) to refuse it; nothing runs then.
/// 2. `attach(to:)` is called once, before the first command runs. Subscribe there
///    (`host.subscribe(context.name, …)`). Durable plugins also read
///    `host.journal` and keep a cursor named after `context.name`. Throw a
///    `PluginError` to refuse to start; the command stops then.
/// 3. Handlers run as the plugin asked: synchronous handlers on the committing
///    thread, inside the order (keep them cheap); queued ones on the plugin's own
///    serial context, in journal order. A throw is reported with the plugin's name
///    and never affects an order, another plugin or the next event.
/// 4. `shutdown(deadline:)` is awaited once before exit, after the bus has drained.
///    Flush what can be flushed before `deadline`, then return; never block past it.
public protocol JuiceMakerPlugin: AnyObject, Sendable {
    /// The config `type` that selects this plugin (`"logger"`).
    static var type: String { get }
    /// The keys this plugin reads from its section, besides `type`, `name` and
    /// `enabled`, each declared once: name, type, range or allowed values, default,
    /// description, required. The host checks every subscriber's section against
    /// them (disabled ones too) and `juice config schema` prints them as JSON Schema.
    static var configuration: [ConfigurationKey] { get }

    /// Builds the plugin from its section. Invalid values throw, naming the path.
    init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError)

    /// Starts listening.
    func attach(to host: PluginHost) throws(PluginError)

    /// Flushes and stops by `deadline`.
    func shutdown(deadline: ContinuousClock.Instant) async

    /// This plugin as a `DurableDeliveryPlugin`, or `nil`. Provided: the host asks this
    /// instead of casting (`as? any DurableDeliveryPlugin`; start-up rule "no
    /// conformance lookups at start", the Performance article).
    var durable: (any DurableDeliveryPlugin)? { get }

    // Capabilities: what a command may ask of a plugin, each with a default, so the
    // host never tests for a concrete plugin type.

    /// Warnings about this plugin's configuration that do not stop it (plain `http://`
    /// to another machine): the plugin reports them once, when it attaches, and
    /// `juice config check` says them before anything runs. Provided: none.
    var startWarnings: [PluginMessage] { get }

    /// How `juice fleet deliver` feeds this plugin from the fleet's stream. Provided:
    /// `.none`, not fed.
    var fleetRole: FleetRole { get }

    /// The kinds of event this plugin itself shows to the person at the terminal (the
    /// CLI notifier): a command skips its own one-line confirmation of such a kind, so
    /// the person does not read the same fact twice. Provided: none.
    var shownKinds: Set<EventKind> { get }

    /// Whether plugins of this type have a `fleetRole` other than `.none`, for the
    /// commands that list subscribers without building them (`juice subscribers`).
    /// Provided: `false`; a type whose plugins have a fleet role says `true`.
    static var isFedFromFleet: Bool { get }

    /// How this kind of plugin turns events into the lines a person reads, for the
    /// commands that show events themselves (`juice watch`, the screens), or `nil`.
    /// Provided: `nil`. The host uses the first registered type that offers one.
    static func eventRenderer(_ style: EventRenderingStyle) -> (any EventRenderer)?
}

extension JuiceMakerPlugin {
    /// Not durable.
    public var durable: (any DurableDeliveryPlugin)? { nil }

    /// No warnings.
    public var startWarnings: [PluginMessage] { [] }

    /// Not fed from the fleet's stream.
    public var fleetRole: FleetRole { .none }

    /// Shows the person nothing.
    public var shownKinds: Set<EventKind> { [] }

    /// Not fed from the fleet's stream.
    public static var isFedFromFleet: Bool { false }

    /// Renders nothing.
    public static func eventRenderer(_ style: EventRenderingStyle) -> (any EventRenderer)? { nil }
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

/// What a plugin attaches to: exactly what a plugin may do, and nothing more.
///
/// A plugin can subscribe to the maker's events and call its public commands
/// (`maker`), read the journal after a cursor and keep its own cursors and dead
/// letters (`journal`), and report a problem. It cannot publish an event or write
/// stock or journal entries directly: `JuiceMaker` keeps its bus and store private,
/// and `journal` is a read view even when the store behind it is also the writer.
public struct PluginHost: Sendable {
    /// The maker whose events the plugin hears and whose commands it may call.
    public let maker: JuiceMaker
    /// The journal's read side and the plugin's own bookkeeping (cursors, dead
    /// letters, retry state, leases), for durable plugins.
    public let journal: any EventJournal
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
    public init(
        maker: JuiceMaker, journal: any EventJournal,
        reportError: @escaping @Sendable (PluginMessage) -> Void,
        describeStoreError: @escaping @Sendable (StoreError) -> PluginMessage = { PluginMessage(untranslated: $0.detail) }
    ) {
        self.maker = maker
        self.journal = JournalView(journal)
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
