import JuiceMakerCore

/// Turns one event into the lines a person reads: what a command that shows events
/// itself (`juice watch`, `juice fleet watch`, the screens) needs from the plugin
/// that shows them (`PluginDeclaration.eventRenderer`), so it shows them the same way.
public protocol EventRenderer: Sendable {
    /// The lines for `envelope`, without newlines. Pure: no I/O.
    func lines(for envelope: EventEnvelope) -> [String]
}

/// How the person reads events where they are shown.
public struct EventRenderingStyle: Sendable, Equatable {
    /// The language of the lines.
    public let language: Language
    /// Whether lines may carry ANSI colour codes (colour allowed and a terminal).
    public let color: Bool
    /// Whether the person can answer a question (a screen reads their answer next);
    /// where nobody can, a renderer states what happened instead of asking.
    public let asks: Bool

    /// `asks` has no default: every place that shows events says whether a person answers there.
    public init(language: Language, color: Bool, asks: Bool) {
        self.language = language
        self.color = color
        self.asks = asks
    }
}
