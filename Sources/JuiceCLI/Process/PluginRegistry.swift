import CLINotifierPlugin
import CommandPlugin
import FleetConfiguration
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import LoggerPlugin
import MetricsPlugin
import WebhookPlugin
import NATSPlugin

/// A subscriber that was built from the config: an observer, or a durable plugin with
/// the delivery the host runs for it.
struct BuiltPlugin: Sendable {
    let entry: SubscriberEntry
    /// What its type declared.
    let declaration: PluginDeclaration
    /// The plugin, when it observes.
    let observer: (any EventObserver)?
    /// The host's delivery to a durable plugin's destination; `nil` for an observer.
    let durable: Delivered<any DurableDeliveryPlugin>?

    /// Builds the plugin `declaration` describes from `entry`'s section.
    init(entry: SubscriberEntry, declaration: PluginDeclaration, context: PluginContext) throws(ConfigurationError) {
        self.entry = entry
        self.declaration = declaration
        switch declaration.kind {
        case .observer(let make):
            observer = try make(entry.configuration, context)
            durable = nil
        case .destination(let make):
            observer = nil
            durable = Delivered(
                erased: try make(entry.configuration, context), name: entry.name,
                warnings: declaration.startWarnings(entry.configuration))
        }
    }

    /// Warnings about its section that do not stop it (`PluginDeclaration.startWarnings`).
    var startWarnings: [PluginMessage] { declaration.startWarnings(entry.configuration) }

    /// How `juice fleet deliver` feeds it.
    var fleetRole: FleetRole {
        if let observer { declaration.fleetRole(of: observer) } else { declaration.durableFleetRole }
    }

    /// The kinds it shows the person itself.
    var shownKinds: Set<EventKind> { declaration.shownKinds(entry.configuration) }

    /// Starts it: an observer's `attach`, or a durable plugin's delivery.
    func attach(to host: PluginHost) throws(PluginError) {
        if let durable { try durable.attach(to: host) } else { try observer?.attach(to: host) }
    }

    /// Stops it by `deadline`: an observer's `shutdown`, or a durable plugin's delivery
    /// and destination.
    func shutdown(deadline: ContinuousClock.Instant) async {
        if let durable { await durable.shutdown(deadline: deadline) } else { await observer?.shutdown(deadline: deadline) }
    }
}

/// The one place that lists the plugin types `juice` knows (the bootstrap), by their
/// declarations. Adding a plugin is one line in `standard`.
struct PluginRegistry: Sendable {
    let declarations: [PluginDeclaration]

    /// Every plugin shipped with JuiceMaker.
    static let standard = PluginRegistry(declarations: [
        EventLogger.declaration, CLINotifier.declaration, Webhook.declaration, CommandSubscriber.declaration, natsDeclaration,
        MetricsTextfile.declaration,
    ])

    init(declarations: [PluginDeclaration]) {
        self.declarations = declarations
    }

    /// The registry of `declarations` (`JuiceProcess.main(plugins:)`), refused when the
    /// config could not select each type and its keys without doubt: a type without a
    /// name or of a name taken, a key declared twice in one type, or a key named as a
    /// key every subscriber has (`type`, `name`, `enabled`).
    init(checking declarations: [PluginDeclaration]) throws(ListError) {
        var types: Set<String> = []
        for declaration in declarations {
            guard !declaration.type.isEmpty else { throw .unnamedType }
            guard types.insert(declaration.type).inserted else { throw .typeTwice(declaration.type) }
            var keys: Set<String> = []
            for key in declaration.configuration {
                if Self.commonKeys.contains(key.name) { throw .commonKey(key.name, type: declaration.type) }
                guard keys.insert(key.name).inserted else { throw .keyTwice(key.name, type: declaration.type) }
            }
        }
        self.declarations = declarations
    }

    /// The keys of every subscriber's section, whatever its type (`ConfigKeys.commonSubscriber`).
    static let commonKeys: Set<String> = ["type", "name", "enabled"]

    /// Why a list of plugin types cannot be a registry: a mistake of the program that
    /// passed it, said in English (its author reads it).
    enum ListError: Error, Equatable, CustomStringConvertible {
        case unnamedType
        case typeTwice(String)
        case keyTwice(String, type: String)
        case commonKey(String, type: String)

        /// The status a process with such a list exits with: EX_SOFTWARE.
        static let exitCode: Int32 = 70

        var description: String {
            let fix = "; fix the list of plugin types given to JuiceProcess.main(plugins:)"
            return switch self {
            case .unnamedType: "a plugin type has an empty name (its declaration's type)" + fix
            case .typeTwice(let type): "two plugin types are named \(ConfigurationKey.quoted(type))" + fix
            case .keyTwice(let key, let type):
                "plugin type \(ConfigurationKey.quoted(type)) declares the key \(ConfigurationKey.quoted(key)) twice" + fix
            case .commonKey(let key, let type):
                "plugin type \(ConfigurationKey.quoted(type)) declares the key \(ConfigurationKey.quoted(key)), which every subscriber has"
                    + fix
            }
        }
    }

    var typeNames: [String] { declarations.map(\.type) }

    func plugin(named type: String) -> PluginDeclaration? {
        declarations.first { $0.type == type }
    }

    /// How a command that shows events itself (`juice watch`, `juice fleet watch`, the
    /// screens) renders them: as the first plugin type that offers a renderer does (the
    /// CLI notifier), so every command shows an event the same way; with none, as the
    /// event's CloudEvents JSON line.
    func eventRenderer(_ style: EventRenderingStyle) -> any EventRenderer {
        for declaration in declarations {
            if let renderer = declaration.eventRenderer?(style) { return renderer }
        }
        return CloudEventLineRenderer()
    }

    /// Builds every enabled subscriber in config order. If one refuses its section,
    /// those already built are shut down and the error (naming the file) is thrown.
    func build(
        _ config: JuiceConfig, context: (SubscriberEntry) -> PluginContext, deadline: ContinuousClock.Instant
    ) async throws(ConfigurationError) -> [BuiltPlugin] {
        try await build(config.subscribers, of: config, context: context, deadline: deadline)
    }

    /// `build`, for `entries` of `config` only (a reload builds what changed).
    func build(
        _ entries: [SubscriberEntry], of config: JuiceConfig, context: (SubscriberEntry) -> PluginContext, deadline: ContinuousClock.Instant
    ) async throws(ConfigurationError) -> [BuiltPlugin] {
        var built: [BuiltPlugin] = []
        for entry in entries where entry.enabled {
            guard let declaration = plugin(named: entry.type) else { continue }
            do {
                built.append(try BuiltPlugin(entry: entry, declaration: declaration, context: context(entry)))
            } catch {
                await Self.shutDown(built, deadline: deadline)
                var located = config.substituted.apply(to: error)
                located.file = config.source.file
                throw located
            }
        }
        return built
    }

    /// Shuts every plugin down at once, each by `deadline`: one plugin that needs the
    /// whole flush deadline (a delivery under way to a program that never reads) must
    /// not leave the others none, so none waits for another.
    static func shutDown(_ plugins: [BuiltPlugin], deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            for built in plugins.reversed() {
                group.addTask { await built.shutdown(deadline: deadline) }
            }
        }
    }

    /// Whether a built plugin shows events of `kind` to the person (its `shownKinds`),
    /// so the CLI must not print the same fact again.
    static func personSees(_ kind: EventKind, among plugins: [BuiltPlugin]) -> Bool {
        plugins.contains { $0.shownKinds.contains(kind) }
    }
}

/// The `nats` subscriber, in every build: libnats is found when it first connects.
let natsDeclaration = NATSPublisher.declaration

/// An event as its CloudEvents JSON line: what a registry without a renderer shows.
struct CloudEventLineRenderer: EventRenderer {
    func lines(for envelope: EventEnvelope) -> [String] { [CloudEventFormat.encode(envelope)] }
}
