import JuiceMakerCore
import SQLiteStore

/// One entry of `subscribers`, checked: a known type, keys the plugin declared.
struct SubscriberEntry: Sendable {
    /// Where it is in the file (`subscribers[1]`).
    let path: String
    let type: String
    /// The config's `name`, or the type with its ordinal among that type (`logger`, `logger-2`).
    let name: String
    let enabled: Bool
    /// The plugin's own keys (without `type`, `name`, `enabled`).
    let configuration: PluginConfiguration
}

/// The config after reading, `${NAME}` substitution and checking. Every value here
/// is of the right type and in range; building it had no side effect.
struct JuiceConfig: Sendable {
    let source: ConfigSource
    /// `nil` means `auto`: follow `LC_ALL`, then `LANG`.
    let language: Language?
    let initialStock: Int
    /// `store.path`, made absolute against the config file's directory.
    let storePath: String?
    let durability: Durability
    let flushDeadlineSeconds: Double
    let subscribers: [SubscriberEntry]
    /// JSON paths of strings that took a value from the environment.
    let substitutedPaths: Set<String>

    static let defaultFlushDeadlineSeconds = 2.0
}

/// The keys the config accepts, in one place: the validator and the schema test read them.
enum ConfigKeys {
    static let topLevel = ["$schema", "language", "initialStock", "store", "flushDeadlineSeconds", "subscribers"]
    static let store = ["path", "durability"]
    /// Keys every subscriber accepts besides its plugin's `configurationKeys`.
    static let commonSubscriber = ["type", "name", "enabled"]
    /// Keys whose values are secrets wherever they appear: never printed.
    static let secretWords = ["secret", "token", "password", "authorization", "apikey", "api-key", "api_key"]
}
