import JuiceMakerCore

/// A plugin that shows events to the person at the terminal (the CLI notifier).
///
/// The host reads this capability so it does not print the same fact twice: a command
/// skips its own one-line confirmation of an event kind that such a plugin already
/// shows. The host asks for the capability, never for a concrete plugin type.
public protocol EventPresentingPlugin: JuiceMakerPlugin {
    /// The kinds of event this plugin shows to the person.
    var shownKinds: Set<EventKind> { get }
}
