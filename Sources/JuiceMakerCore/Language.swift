/// The two languages every message exists in.
public enum Language: String, Sendable, CaseIterable {
    case korean = "ko"
    case english = "en"

    /// The language a locale environment asks for: `LC_ALL` wins over `LANG`;
    /// a value starting with `ko` means Korean, anything else (or nothing) English.
    public init(environment: [String: String]) {
        let chosen = [environment["LC_ALL"], environment["LANG"]]
            .compactMap { $0 }
            .first { !$0.isEmpty } ?? ""
        self = chosen.lowercased().hasPrefix("ko") ? .korean : .english
    }
}
