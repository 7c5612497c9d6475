import JuiceJSON
import JuiceMakerPluginKit

/// What `juice config show` prints: every declared key of the config (`ConfigKeys`),
/// with the value in effect, and where that value came from. The keys come from the
/// declarations, so a key added there shows here without a change.
///
/// Secrets never appear: values taken from `${NAME}` print as `***`, and every other
/// value as its key's declaration says (`ConfigurationKey.secrecy`): a secret key's
/// value, a command's environment values and the credentials in its arguments, and a
/// URL's `user:password@` or query values anywhere print as `***`.
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

    /// The config as JSON: every key that has a value (written, or its default), in
    /// declaration order; a config `juice config check` accepts (`juice help config`).
    let document: JSONValue
    /// Where each value came from: every key, or for a key holding an object (`store`,
    /// `fleet`) every key of that object (`store.path`), in declaration order.
    let origins: [(path: String, origin: Origin)]

    static let mask = JSONValue.string(ConfigurationSecrecy.mask)

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
                    var shown = Self.shown(inner, path: path, value ?? inner.defaultValue ?? .null, config)
                    if path == "store.path" {
                        origin = Self.storeOrigin(context) ?? origin
                        shown = .string(context.location.displayPath)
                    }
                    // A key with no value and no default is left out: the document is a
                    // config `juice config check` accepts, and null is no key's value.
                    if shown != .null { fields.append(JSONMember(key: inner.name, value: shown)) }
                    origins.append((path, origin))
                }
                members.append(JSONMember(key: key.name, value: .object(fields)))
                continue
            }
            origins.append((key.name, Self.origin(key.name, written: written != nil, config)))
            let value = Self.value(of: key, written: written, context)
            if value != .null { members.append(JSONMember(key: key.name, value: value)) }
        }
        document = .object(members)
        self.origins = origins
    }

    /// The value in effect of a key that does not hold an object.
    private static func value(of key: ConfigurationKey, written: JSONValue?, _ context: CommandContext) -> JSONValue {
        let config = context.config
        switch key.name {
        case ConfigKeys.machine.name: return shown(key, path: key.name, .string(config.machine), config)
        case "subscribers": return .array(config.subscribers.map { subscriber($0, context) })
        default: return shown(key, path: key.name, written ?? key.defaultValue ?? .null, config)
        }
    }

    private static func subscriber(_ entry: SubscriberEntry, _ context: CommandContext) -> JSONValue {
        let config = context.config
        let declared = context.registry.plugin(named: entry.type)?.configuration ?? []
        let name: JSONValue = isSubstituted("\(entry.path).name", config) ? mask : .string(entry.name)
        let common = [
            JSONMember(key: "type", value: .string(entry.type)), JSONMember(key: "name", value: name),
            JSONMember(key: "enabled", value: .bool(entry.enabled)),
        ]
        return .object(
            common
                + entry.configuration.values.map { member in
                    // A key the plugin does not declare was refused by the check: hidden whole.
                    let secrecy = declared.first { $0.name == member.key }?.secrecy ?? .secret
                    let path = "\(entry.path).\(member.key)"
                    return JSONMember(key: member.key, value: shown(secrecy, path: path, member.value, config))
                })
    }

    /// `value` of `key` as it may be printed: masked when it came from the environment,
    /// else as the key's declaration says.
    private static func shown(_ key: ConfigurationKey, path: String, _ value: JSONValue, _ config: JuiceConfig) -> JSONValue {
        shown(key.secrecy, path: path, value, config)
    }

    private static func shown(_ secrecy: ConfigurationSecrecy, path: String, _ value: JSONValue, _ config: JuiceConfig) -> JSONValue {
        if value == .null { return value }
        if isSubstituted(path, config) { return mask }
        return secrecy.shown(value)
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
}
