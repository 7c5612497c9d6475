import JuicePrimitives

/// The two languages every message exists in.
public enum Language: String, Sendable, CaseIterable {
    case korean = "ko"
    case english = "en"

    /// The language a POSIX locale environment asks for messages in.
    ///
    /// POSIX (XBD 8.2) orders the variables `LC_ALL`, then `LC_MESSAGES`, then
    /// `LANG`: the first one set and not empty decides. Its language code is the
    /// part before `_`, `.` or `@` (`ko_KR.UTF-8` → `ko`), matched exactly and without
    /// regard to case, so `kok_IN` (Konkani) is not Korean. Anything but `ko` (or
    /// nothing, or `C`/`POSIX`) means English.
    package init(environment: [String: String]) {
        let chosen =
            ["LC_ALL", "LC_MESSAGES", "LANG"]
            .lazy
            .compactMap { environment[$0] }
            .first { !$0.isEmpty } ?? ""
        let code = chosen.prefix { $0 != "_" && $0 != "." && $0 != "@" }
        self = code.lowercased() == "ko" ? .korean : .english
    }
}

extension PluginMessage {
    /// The text in `language`.
    public func callAsFunction(_ language: Language) -> String {
        language == .korean ? korean : english
    }
}
