/// The one-vs-many choice of English messages, made in one place: `1 event`,
/// `2 events`, `0 events`. Korean has no plural (`이벤트 1개`), so only the English
/// text of a message goes through here.
public enum EnglishCount {
    /// `count` and its noun: `1 event`, `2 events`; `plural` when it is not `singular` + `s`.
    public static func of(_ count: some BinaryInteger, _ singular: String, plural: String? = nil) -> String {
        "\(count) \(choose(count, singular, plural ?? singular + "s"))"
    }

    /// The same for a count as typed (`"1"`, `"99999999999999999999"`), too large for an
    /// integer perhaps.
    public static func of(_ count: String, _ singular: String, plural: String? = nil) -> String {
        "\(count) \(count == "1" ? singular : plural ?? singular + "s")"
    }

    /// `one` for a count of exactly 1, else `many`: a noun or a verb that agrees with
    /// the count (`1 event waits`, `2 events wait`).
    public static func choose(_ count: some BinaryInteger, _ one: String, _ many: String) -> String {
        count == 1 ? one : many
    }
}
