import JuiceJSON
import JuiceMakerCore
import JuicePrimitives

/// What of a config key's value may be shown, declared with the key
/// (`ConfigurationKey.secrecy`): `juice config show` prints the value through
/// `shown(_:)`. Secrets are denied by default: a text value is shown only when its key
/// is declared `.harmless` (a path, a name, a URL); undeclared, it is `.secret`.
///
/// Whatever the declaration, every string shown has its URLs' credentials, query
/// values, fragments and token-like path segments masked (`URLCredentials`).
public enum ConfigurationSecrecy: Sendable, Equatable {
    /// Shown, but for the secrets of URLs in it.
    case harmless
    /// The whole value: shown as `***`.
    case secret
    /// An object's values (a program's environment), but for the names on `harmless`:
    /// a name is harmless when it is listed, or when a listed name ends in `*` and it
    /// begins with what comes before (`LC_*`).
    case secretValues(harmless: [String])
    /// A program and its arguments: the program is shown, every argument after it is
    /// masked (`["sh", "-c", "curl -u admin:…"]` shows as `["sh", "***", "***"]`).
    case credentials

    /// The mask every hidden value is shown as.
    package static let mask = "***"

    /// Words that make a name secret wherever they appear in it, case ignored: a key so
    /// named is `.secret` unless declared otherwise, and an argument option so named has
    /// its value masked.
    package static let secretWords = ["secret", "token", "password", "passwd", "authorization", "apikey", "api-key", "api_key", "credential"]

    /// The environment variables whose values are shown: a locale, the time zone and
    /// search paths, never credentials.
    package static let harmlessEnvironment = [
        "LANG", "LANGUAGE", "LC_*", "TZ", "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "PWD",
    ]

    /// Whether `name` reads like a secret's (`webhookSecret`, `API_TOKEN`).
    package static func isSecretName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return secretWords.contains { lowered.containsText($0) }
    }

    /// `value` as it may be printed.
    package func shown(_ value: JSONValue) -> JSONValue {
        switch (self, value) {
        case (_, .null): return value
        case (.secret, _): return .string(Self.mask)
        case (.secretValues(let harmless), .object(let members)):
            return .object(
                members.map { member in
                    let named = harmless.contains { $0.hasSuffix("*") ? member.key.hasPrefix($0.dropLast()) : member.key == $0 }
                    return JSONMember(key: member.key, value: named ? ConfigurationSecrecy.harmless.shown(member.value) : .string(Self.mask))
                })
        case (.credentials, .array(let items)):
            return .array(items.enumerated().map { index, item in index == 0 ? ConfigurationSecrecy.harmless.shown(item) : .string(Self.mask) })
        case (.credentials, .string): return .string(Self.mask)
        case (_, .string(let text)): return .string(URLCredentials.redacted(text))
        case (_, .array(let items)): return .array(items.map { shown($0) })
        case (_, .object(let members)): return .object(members.map { JSONMember(key: $0.key, value: shown($0.value)) })
        default: return value
        }
    }
}
