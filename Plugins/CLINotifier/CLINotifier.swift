import JuiceMakerCore

/// Shows events to the person at the terminal, in their language.
public final class CLINotifier: JuiceMakerPlugin {
    /// The config `type` that selects the notifier.
    public static let type = "cli-notifier"
    /// The keys the notifier reads.
    public static let configurationKeys = ["events", "stockChanges"]

    private let context: PluginContext

    /// Builds the notifier from its config section.
    public init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        self.context = context
    }

    /// Subscribes to the maker's events.
    public func attach(to host: PluginHost) throws(JuiceMakerError) {}

    /// Nothing to flush: delivery is synchronous.
    public func shutdown(deadline: ContinuousClock.Instant) async {}
}
