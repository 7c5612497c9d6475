import JuiceMakerCore
import JuicePrimitives

/// What the host knows of a type of plugin, read without building one: its config
/// `type` and keys (and so which are secret), whether it observes or takes events
/// durably, how `juice fleet deliver` feeds it, how it renders events for a person,
/// and what it warns of at start. A plugin type states it once (`static let
/// declaration = PluginDeclaration.observer(…)` or `.destination(…)`); the host's
/// registry lists declarations and builds plugins through them, so it never casts.
public struct PluginDeclaration: Sendable {
    /// The config `type` that selects the plugin (`"logger"`).
    public let type: String
    /// The keys the plugin reads from its section, besides `type`, `name` and
    /// `enabled`, each declared once: name, type, range or allowed values, default,
    /// description, required, secrecy. The host checks every subscriber's section
    /// against them (disabled ones too) and `juice config schema` prints them.
    public let configuration: [ConfigurationKey]
    /// What the host builds from a section: an observer or a durable plugin.
    package let kind: Kind
    /// Whether `juice fleet deliver` feeds plugins of this type from the fleet's stream
    /// (`FleetRole`), for the commands that list subscribers without building them.
    package let isFedFromFleet: Bool
    /// How this type turns events into the lines a person reads, for the commands that
    /// show events themselves (`juice watch`, the screens), or `nil`. The host uses the
    /// first registered type that offers one.
    package let eventRenderer: (@Sendable (EventRenderingStyle) -> any EventRenderer)?
    /// Warnings about a section that do not stop the plugin (plain `http://` to another
    /// machine): said once when it starts, and by `juice config check` before anything
    /// runs. Read from a section the plugin accepted.
    package let startWarnings: @Sendable (PluginConfiguration) -> [PluginMessage]
    /// The kinds of event a plugin built from a section shows the person at the
    /// terminal itself (the CLI notifier): a command skips its own one-line
    /// confirmation of such a kind, so the person does not read the same fact twice.
    package let shownKinds: @Sendable (PluginConfiguration) -> Set<EventKind>
    private let fleetRoleOf: @Sendable (any EventObserver) -> FleetRole

    /// What the host builds from a section.
    package enum Kind: Sendable {
        /// An `EventObserver`.
        case observer(@Sendable (PluginConfiguration, PluginContext) throws(ConfigurationError) -> any EventObserver)
        /// A `DurableDeliveryPlugin`, whose destination the host delivers to.
        case destination(@Sendable (PluginConfiguration, PluginContext) throws(ConfigurationError) -> any DurableDeliveryPlugin)
    }

    /// An observer type. `fedFromFleet`: how `juice fleet deliver` feeds one of its
    /// plugins (a destination over it and the kinds it takes, the host's runner
    /// delivering to it), or `nil` (the default) when it is not fed from the stream.
    public static func observer<Plugin: EventObserver>(
        _ plugin: Plugin.Type, type: String, configuration: [ConfigurationKey],
        eventRenderer: (@Sendable (EventRenderingStyle) -> any EventRenderer)? = nil,
        shownKinds: @escaping @Sendable (PluginConfiguration) -> Set<EventKind> = { _ in [] },
        fedFromFleet: (@Sendable (Plugin) -> (destination: any DurableDestination, kinds: Set<EventKind>?))? = nil
    ) -> PluginDeclaration {
        PluginDeclaration(
            type: type, configuration: configuration,
            kind: .observer { configuration, context throws(ConfigurationError) in
                try Plugin(configuration: configuration, context: context)
            },
            isFedFromFleet: fedFromFleet != nil, eventRenderer: eventRenderer, startWarnings: { _ in [] }, shownKinds: shownKinds,
            fleetRoleOf: { observer in
                guard let fedFromFleet, let plugin = observer as? Plugin else { return .none }
                let (destination, kinds) = fedFromFleet(plugin)
                return .destination(destination, kinds: kinds)
            })
    }

    /// A durable plugin type. `fedFromFleet`: whether `juice fleet deliver` feeds it
    /// from the stream through the host's runner (the default), or not (the `nats`
    /// publisher: feeding it the fleet's events would echo them).
    public static func destination<Plugin: DurableDeliveryPlugin>(
        _ plugin: Plugin.Type, type: String, configuration: [ConfigurationKey], fedFromFleet: Bool = true,
        startWarnings: @escaping @Sendable (PluginConfiguration) -> [PluginMessage] = { _ in [] }
    ) -> PluginDeclaration {
        PluginDeclaration(
            type: type, configuration: configuration,
            kind: .destination { configuration, context throws(ConfigurationError) in
                try Plugin(configuration: configuration, context: context)
            },
            isFedFromFleet: fedFromFleet, eventRenderer: nil, startWarnings: startWarnings, shownKinds: { _ in [] },
            fleetRoleOf: { _ in .none })
    }

    /// Whether plugins of this type take events durably.
    package var isDurable: Bool {
        if case .destination = kind { true } else { false }
    }

    /// The names of the keys whose values are never shown as they are.
    package var secretKeys: [String] {
        configuration.filter { $0.secrecy != .harmless }.map(\.name)
    }

    /// How `juice fleet deliver` feeds `observer`, a plugin of this type.
    package func fleetRole(of observer: any EventObserver) -> FleetRole { fleetRoleOf(observer) }

    /// How `juice fleet deliver` feeds a durable plugin of this type.
    package var durableFleetRole: FleetRole { isFedFromFleet ? .subscriber : .none }
}
