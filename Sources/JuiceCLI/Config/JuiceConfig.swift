import FleetConfiguration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
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
    /// `store.retention`: how many days of events the journal keeps before `juice store
    /// compact` may fold them into rollups and delete them; nil keeps every event.
    var retentionDays: Int? = nil
    let flushDeadlineSeconds: Double
    /// `backgroundDelivery`: whether `juice order` and `juice stock set|add|remove` hand
    /// durable subscribers' deliveries to a background `juice deliver` (`DeliveryHandOff`)
    /// instead of delivering before they exit.
    let backgroundDelivery: Bool
    let subscribers: [SubscriberEntry]
    /// `machine`: this machine's name in the fleet (default: the host name, made safe).
    let machine: String
    /// `fleet`: where `juice fleet` reads the fleet's stream; `nil` when not configured.
    let fleet: PluginConfiguration?
    /// The top-level members as written (after `${NAME}` substitution), for `config show`.
    let members: [JSONMember]
    /// What took a value from the environment: never printed.
    let substituted: Redaction
    /// `${NAME}`s not set in disabled subscribers: nothing needs them now, so only
    /// `juice config check` reports them (as warnings).
    let warnings: [ConfigurationError]

    /// JSON paths of strings that took a value from the environment.
    var substitutedPaths: Set<String> { substituted.paths }

    static let defaultFlushDeadlineSeconds = 2.0
    /// The longest subscriber `name`, in characters: it names a cursor, a lease file
    /// beside the store and a row of `juice subscribers`.
    static let maximumNameLength = 64
}

/// The keys the config accepts besides each plugin's own, declared once: the
/// validator checks and reads through them and `juice config schema` prints them.
enum ConfigKeys {
    static let schema = ConfigurationKey("$schema", .string, secrecy: .harmless, description: "The schema for editors.")
    static let language = ConfigurationKey(
        "language", .oneOf(["auto"] + Language.allCases.map(\.rawValue)), default: .string("auto"),
        description: "Language of messages; auto follows LC_ALL, then LC_MESSAGES, then LANG (ko is Korean).")
    static let initialStock = ConfigurationKey(
        "initialStock", .integer(0...Stock.maximumQuantity), default: .integer(Stock.defaultInitialQuantity),
        description: "Quantity of each fruit in a new store.")
    static let storePath = ConfigurationKey(
        "path", .string([.nonEmpty("path"), .noNUL]), secrecy: .harmless,
        description: "The store file; relative to this file's directory. Default: $XDG_STATE_HOME/juice-maker/.")
    static let durability = ConfigurationKey(
        "durability", .oneOf(Durability.allCases.map(\.rawValue)), default: .string(Durability.full.rawValue),
        description: "full: every commit survives a power loss; normal: faster, the last commits may not.")
    static let retention = ConfigurationKey(
        "retention", .string([.nonEmpty("retention")]), secrecy: .harmless,
        description: "How long the journal keeps events, as days or weeks (400d, 60w): juice store compact, and juice deliver "
            + "--follow once a day, fold older events that every durable subscriber has passed into the report's rollups and "
            + "delete them. Default: keep every event.")
    static let store = ConfigurationKey(
        "store", .object([storePath, durability, retention]), description: "The embedded SQLite store.")

    /// The longest retention accepted: 100 years.
    static let maximumRetentionDays = 36_500

    /// `400d` or `60w` as days; nil for any other text or a value out of range.
    static func retentionDays(_ text: String) -> Int? {
        guard let unit = text.last, let multiplier = ["d": 1, "w": 7][String(unit)] else { return nil }
        let digits = text.dropLast()
        guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(digits) else {
            return nil
        }
        let days = number * multiplier
        return (1...maximumRetentionDays).contains(days) ? days : nil
    }
    static let flushDeadlineSeconds = ConfigurationKey(
        "flushDeadlineSeconds", .number(minimum: 0, maximum: 60, unit: "seconds"),
        default: .number(JuiceConfig.defaultFlushDeadlineSeconds),
        description: "How long subscribers may take to flush before juice exits.")
    static let backgroundDelivery = ConfigurationKey(
        "backgroundDelivery", .boolean, default: .bool(true),
        description: "true: juice order and juice stock return once the change is committed and a background juice deliver "
            + "sends it to durable subscribers (webhook, command, nats); false: they deliver before exiting, by flushDeadlineSeconds.")

    static let machine = ConfigurationKey(
        "machine", .string([.nonEmpty("machine")]), secrecy: .harmless,
        description: "This machine's name in the fleet: letters, digits, - and _ only (one NATS subject token). "
            + "Events' CloudEvents source is /juice-maker/<machine>. Default: the host name, made safe.")
    static let fleet = ConfigurationKey(
        "fleet", .object(Fleet.readerKeys),
        description: "Where juice fleet commands read the fleet's JetStream stream (--nats overrides url).")

    /// `type`, `name`, `enabled`: every subscriber's keys besides its plugin's.
    static func commonSubscriber(_ registry: PluginRegistry) -> [ConfigurationKey] {
        [
            ConfigurationKey("type", .oneOf(registry.typeNames), required: true, description: "Which plugin."),
            ConfigurationKey(
                "name", .string([.nonEmpty("name"), .maxLength(JuiceConfig.maximumNameLength, "name")]), secrecy: .harmless,
                description: "Unique name, at most 64 characters; names durable cursors. Default: the type, then type-2, type-3, ..."),
            ConfigurationKey(
                "enabled", .boolean, default: .bool(true),
                description: "false keeps the entry, checked, but does not run it."),
        ]
    }

    /// `subscribers`: objects shaped by their `type` (the validator and the schema
    /// expand them from the registry).
    static func subscribers(_ registry: PluginRegistry) -> ConfigurationKey {
        ConfigurationKey(
            "subscribers", .list(.object(commonSubscriber(registry))),
            description: "The plugins that hear events, in order; [] for none. Default: a logger (to juice-maker.log) and a cli-notifier.")
    }

    static func topLevel(_ registry: PluginRegistry) -> [ConfigurationKey] {
        [schema, language, initialStock, store, flushDeadlineSeconds, backgroundDelivery, machine, fleet, subscribers(registry)]
    }
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
            $0.replacingText($1, with: "***")
        }
    }

    /// `error` with its problem redacted.
    func apply(to error: ConfigurationError) -> ConfigurationError {
        error.mapText { apply(to: $0) }
    }
}
