import JuiceJSON
import JuiceMakerPluginKit

/// What `juice config show` prints: every declared key of the config (`ConfigKeys`),
/// with the value in effect, and where that value came from. The keys come from the
/// declarations, so a key added there shows here without a change.
///
/// Secrets never appear: values taken from `${NAME}`, values of secret-like keys
/// (`ConfigKeys.secretWords`) and a URL's `user:password@` or query values print as
/// `***`.
struct EffectiveConfig {
    /// Where a value came from.
    enum Origin: String, Sendable, CaseIterable {
        /// Written in the config file.
        case file
        /// Written in the config file as `${NAME}`: taken from the environment.
        case environment
        /// Not written anywhere: the key's default (for `machine`, the host name).
        case `default`
        /// `store.path` from the command line or the environment variable.
        case storeOption = "--store"
        case storeVariable = "JUICE_MAKER_STORE"
        case inMemory = "--in-memory"
    }

    /// The config as JSON: every key, in declaration order.
    let document: JSONValue
    /// Where each value came from: every key, or for a key holding an object (`store`,
    /// `fleet`) every key of that object (`store.path`), in declaration order.
    let origins: [(path: String, origin: Origin)]

    static let mask = JSONValue.string("***")

    /// The keys shown: every top-level key but `$schema`, which is for editors.
    static func shownKeys(_ registry: PluginRegistry) -> [ConfigurationKey] {
        ConfigKeys.topLevel(registry).filter { $0.name != ConfigKeys.schema.name }
    }

    init(_ context: CommandContext) {
        let config = context.config
        var members: [JSONMember] = []
        var origins: [(path: String, origin: Origin)] = []
        for key in Self.shownKeys(context.registry) {
            let written = config.members.first { $0.key == key.name }?.value
            if case .object(let keys) = key.type {
                // Every key of the object, written or defaulted, as the readers see it.
                var fields: [JSONMember] = []
                let present: [JSONMember] =
                    if case .object(let present)? = written { present } else { [] }
                for inner in keys {
                    let path = "\(key.name).\(inner.name)"
                    let value = present.first { $0.key == inner.name }?.value
                    var origin = Self.origin(path, written: value != nil, config)
                    var shown = Self.shown(inner.name, path: path, value ?? inner.defaultValue ?? .null, config)
                    if path == "store.path" {
                        origin = Self.storeOrigin(context) ?? origin
                        shown = .string(context.location.displayPath)
                    }
                    fields.append(JSONMember(key: inner.name, value: shown))
                    origins.append((path, origin))
                }
                members.append(JSONMember(key: key.name, value: .object(fields)))
                continue
            }
            origins.append((key.name, Self.origin(key.name, written: written != nil, config)))
            members.append(JSONMember(key: key.name, value: Self.value(of: key, written: written, context)))
        }
        document = .object(members)
        self.origins = origins
    }

    /// The value in effect of a key that does not hold an object.
    private static func value(of key: ConfigurationKey, written: JSONValue?, _ context: CommandContext) -> JSONValue {
        let config = context.config
        switch key.name {
        case ConfigKeys.machine.name: return shown(key.name, path: key.name, .string(config.machine), config)
        case "subscribers": return .array(config.subscribers.map { subscriber($0, config) })
        default: return shown(key.name, path: key.name, written ?? key.defaultValue ?? .null, config)
        }
    }

    private static func subscriber(_ entry: SubscriberEntry, _ config: JuiceConfig) -> JSONValue {
        let name: JSONValue = isSubstituted("\(entry.path).name", config) ? mask : .string(entry.name)
        let common = [
            JSONMember(key: "type", value: .string(entry.type)), JSONMember(key: "name", value: name),
            JSONMember(key: "enabled", value: .bool(entry.enabled)),
        ]
        return .object(
            common
                + entry.configuration.values.map { member in
                    JSONMember(key: member.key, value: shown(member.key, path: "\(entry.path).\(member.key)", member.value, config))
                })
    }

    /// `value` as it may be printed: masked when it is a secret or came from the
    /// environment, a URL's credentials hidden otherwise.
    private static func shown(_ key: String, path: String, _ value: JSONValue, _ config: JuiceConfig) -> JSONValue {
        if value == .null { return value }
        if isSecret(key) || isSubstituted(path, config) { return mask }
        if case .string(let text) = value { return .string(URLCredentials.redacted(text)) }
        return value
    }

    private static func origin(_ path: String, written: Bool, _ config: JuiceConfig) -> Origin {
        // The built-in config is the defaults, written down.
        guard written, config.source.file != nil else { return .default }
        return isSubstituted(path, config) ? .environment : .file
    }

    /// Where the store's path came from, when not from the config.
    private static func storeOrigin(_ context: CommandContext) -> Origin? {
        if context.settings.inMemory { return .inMemory }
        if context.settings.storePath != nil { return .storeOption }
        if let named = context.environment["JUICE_MAKER_STORE"], !named.isEmpty { return .storeVariable }
        return nil
    }

    private static func isSubstituted(_ path: String, _ config: JuiceConfig) -> Bool {
        config.substitutedPaths.contains { $0 == path || $0.hasPrefix(path + "[") || $0.hasPrefix(path + ".") }
    }

    static func isSecret(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return ConfigKeys.secretWords.contains { lowered.containsText($0) }
    }
}
