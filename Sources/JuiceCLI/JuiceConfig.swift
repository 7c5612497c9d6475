import Foundation
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
    /// `nil` means `auto`: follow `LC_ALL`, then `LC_MESSAGES`, then `LANG`.
    let language: Language?
    let initialStock: Int
    /// `store.path`, made absolute against the config file's directory.
    let storePath: String?
    let durability: Durability
    let flushDeadlineSeconds: Double
    let subscribers: [SubscriberEntry]
    /// What took a value from the environment: never printed.
    let substituted: Redaction

    /// JSON paths of strings that took a value from the environment.
    var substitutedPaths: Set<String> { substituted.paths }

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

/// What `${NAME}` put into a config, so nothing prints it: `config show` masks the
/// paths, and every config error has the values replaced by `***` (a value can reach
/// an error's text through a plugin's own check, e.g. `found "…"`).
struct Redaction: Sendable {
    /// JSON paths of strings that took a value from the environment.
    let paths: Set<String>
    /// The values taken.
    let values: Set<String>

    static let none = Redaction(paths: [], values: [])

    /// `text` with every substituted value replaced by `***`, longest first.
    func apply(to text: String) -> String {
        values.filter { !$0.isEmpty }.sorted { $0.count > $1.count }.reduce(text) {
            $0.replacingOccurrences(of: $1, with: "***")
        }
    }

    /// `error` with its problem redacted.
    func apply(to error: ConfigurationError) -> ConfigurationError {
        ConfigurationError(file: error.file, path: error.path, problem: apply(to: error.problem))
    }
}
