import JuiceJSON
import JuiceMakerCore
import JuicePrimitives

/// What of a config key's value is secret, declared with the key
/// (`ConfigurationKey.secrecy`): `juice config show` prints the value through
/// `shown(_:)`, so a plugin's secrets are masked by declaring them.
///
/// Whatever the declaration, every string shown has a URL's `user:password@` and query
/// values masked (`URLCredentials`).
public enum ConfigurationSecrecy: Sendable, Equatable {
    /// Nothing but the credentials of URLs.
    case none
    /// The whole value: shown as `***`.
    case secret
    /// An object's values (a program's environment), but for the names on `harmless`:
    /// a name is harmless when it is listed, or when a listed name ends in `*` and it
    /// begins with what comes before (`LC_*`).
    case secretValues(harmless: [String])
    /// A program's arguments: besides URLs, `user:password` (`admin:***`) and the value
    /// of an option named like a secret (`--password=***`, `--token ***`).
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
                    return JSONMember(key: member.key, value: named ? ConfigurationSecrecy.none.shown(member.value) : .string(Self.mask))
                })
        case (.credentials, .array(let items)):
            var masksNext = false
            return .array(
                items.map { item in
                    guard case .string(let text) = item else { return ConfigurationSecrecy.none.shown(item) }
                    defer { masksNext = text.hasPrefix("-") && !text.contains("=") && Self.isSecretName(text) }
                    return .string(masksNext ? Self.mask : Self.argumentShown(text))
                })
        case (.credentials, .string(let text)): return .string(Self.argumentShown(text))
        case (_, .string(let text)): return .string(URLCredentials.redacted(text))
        case (_, .array(let items)): return .array(items.map { shown($0) })
        case (_, .object(let members)): return .object(members.map { JSONMember(key: $0.key, value: shown($0.value)) })
        default: return value
        }
    }

    /// One argument as it may be printed: a URL's credentials, `user:password`'s
    /// password and `--secret-option=value`'s value masked. Anything like
    /// `name:rest` counts as `user:password` (`host:8080` shows as `host:***`): a
    /// harmless value is sometimes hidden, a password never shown.
    private static func argumentShown(_ text: String) -> String {
        if text.containsText("://") { return URLCredentials.redacted(text) }
        if text.hasPrefix("-"), let equals = text.firstIndex(of: "=") {
            let value = String(text[text.index(after: equals)...])
            return text[...equals] + (isSecretName(String(text[..<equals])) ? mask : argumentShown(value))
        }
        // `user:password`: a name without `/` or spaces before the first colon.
        if let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex,
            !text[..<colon].contains(where: { $0 == "/" || $0 == " " || $0 == "=" })
        {
            return text[...colon] + mask
        }
        return text
    }
}
