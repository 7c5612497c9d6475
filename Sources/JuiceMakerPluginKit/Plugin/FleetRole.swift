import JuiceMakerCore

/// How `juice fleet deliver` feeds a plugin from the fleet's stream instead of the
/// local journal (`PluginDeclaration.fleetRole(of:)`, `durableFleetRole`).
///
/// In every role the host first attaches the plugin to a host whose journal is the
/// stream, and shuts it down at the end, as any command does.
package enum FleetRole: Sendable {
    /// Not fed from the stream: the default, and the role of a plugin that publishes
    /// this machine's events to the fleet (feeding it the fleet's would echo them).
    case none
    /// A durable plugin fed by the runner the host keeps for it, which reads the
    /// stream through the host's journal once attached.
    case subscriber
    /// Fed through `destination` by a runner the host makes for the plugin, over the
    /// kinds in `kinds` (`nil`: every kind), and stops before shutting the plugin down:
    /// for a plugin that is not durable on its own (the logger writes each line
    /// before the stream's message is acknowledged).
    case destination(any DurableDestination, kinds: Set<EventKind>?)
}
