import JuiceMakerCore

/// A line the person typed that a screen refuses: one message, nothing changed.
struct ScreenInputError: Error, Sendable, Equatable {
    let message: LocalizedText

    init(_ message: LocalizedText) {
        self.message = message
    }
}

/// One line typed at a screen's prompt, read the same way on every screen: spaces and
/// tabs around it do not count, an empty line is `empty`, one of the screen's `words`
/// (in any case) is the line the table names, and any other line is the screen's own
/// syntax (`parseOther`).
protocol PromptLine: Sendable, Equatable {
    /// An empty line: nothing to do.
    static var empty: Self { get }
    /// The screen's words, lower-case, each with the line it is.
    static var words: [String: Self] { get }
    /// A line, trimmed, that is neither empty nor one of `words`.
    static func parseOther(_ line: String) throws(ScreenInputError) -> Self
}

extension PromptLine {
    /// Reads one line as every screen does (see `PromptLine`).
    static func parse(_ text: String) throws(ScreenInputError) -> Self {
        let line = text.trimmingWhitespace()
        if line.isEmpty { return empty }
        if let word = words[line.lowercased()] { return word }
        return try parseOther(line)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }
}
