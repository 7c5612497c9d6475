import CLINotifierPlugin
import CommandPlugin
import FleetConfiguration
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import LoggerPlugin
import MetricsPlugin
import WebhookPlugin
#if canImport(NATSPlugin)
import NATSPlugin
#endif

/// A subscriber that was built from the config: its plugin, and for a durable one the
/// delivery the host runs for it.
struct BuiltPlugin: Sendable {
    let entry: SubscriberEntry
    let plugin: any JuiceMakerPlugin
    /// The host's delivery to a durable plugin's destination; `nil` for the others.
    let durable: Delivered<any DurableDeliveryPlugin>?

    init(entry: SubscriberEntry, plugin: any JuiceMakerPlugin) {
        self.entry = entry
        self.plugin = plugin
        durable = plugin.durable.map { Delivered(erased: $0, name: entry.name) }
    }

    /// Starts the plugin: a durable one's delivery, or the plugin's own `attach`.
    func attach(to host: PluginHost) throws(PluginError) {
        if let durable { try durable.attach(to: host) } else { try plugin.attach(to: host) }
    }

    /// Stops the plugin by `deadline`: a durable one's delivery and destination, or the
    /// plugin's own `shutdown`.
    func shutdown(deadline: ContinuousClock.Instant) async {
        if let durable { await durable.shutdown(deadline: deadline) } else { await plugin.shutdown(deadline: deadline) }
    }
}

/// The one place that lists the plugin types `juice` knows (the bootstrap). Adding a
/// plugin is one line in `standard`.
struct PluginRegistry: Sendable {
    let types: [any JuiceMakerPlugin.Type]

    /// Every plugin shipped with JuiceMaker.
    static let standard = PluginRegistry(types: [
        EventLogger.self, CLINotifier.self, Webhook.self, CommandSubscriber.self, natsPluginType, MetricsTextfile.self,
    ])

    var typeNames: [String] { types.map { $0.type } }

    func plugin(named type: String) -> (any JuiceMakerPlugin.Type)? {
        types.first { $0.type == type }
    }

    /// How a command that shows events itself (`juice watch`, `juice fleet watch`, the
    /// screens) renders them: as the first plugin type that offers a renderer does (the
    /// CLI notifier), so every command shows an event the same way; with none, as the
    /// event's CloudEvents JSON line.
    func eventRenderer(_ style: EventRenderingStyle) -> any EventRenderer {
        for type in types {
            if let renderer = type.eventRenderer(style) { return renderer }
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
            guard let type = plugin(named: entry.type) else { continue }
            do {
                built.append(BuiltPlugin(entry: entry, plugin: try type.init(configuration: entry.configuration, context: context(entry))))
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
        plugins.contains { $0.plugin.shownKinds.contains(kind) }
    }
}

/// The `nats` subscriber: the NATS plugin in a build with libnats; without it, one
/// that declares the same keys and refuses to start (`NATSUnavailable`).
#if canImport(NATSPlugin)
let natsPluginType: any JuiceMakerPlugin.Type = NATSPublisher.self
#else
let natsPluginType: any JuiceMakerPlugin.Type = NATSUnavailable.self
#endif

/// An event as its CloudEvents JSON line: what a registry without a renderer shows.
struct CloudEventLineRenderer: EventRenderer {
    func lines(for envelope: EventEnvelope) -> [String] { [CloudEventFormat.encode(envelope)] }
}
