import JuiceMakerCore
import JuiceMakerPluginKit

/// A text for the person, in both languages `juice` speaks. Every message the CLI
/// prints is one of these, made by `Catalog`, so none exists in one language only.
struct LocalizedText: Sendable, Equatable {
    let english: String
    let korean: String

    init(_ english: String, ko korean: String) {
        self.english = english
        self.korean = korean
    }

    /// The text in `language`.
    func callAsFunction(_ language: Language) -> String {
        language == .korean ? korean : english
    }
}

/// The one catalog of everything `juice` says, in English and Korean. Its members
/// live in extensions by theme: help texts, errors, results.
enum Catalog {}

extension Catalog {
    /// A value a message echoes (a word typed, a name or value from the config, a field
    /// from another machine): control characters escaped, cut at
    /// `TerminalText.echoLimit` characters with `…`. Every catalog entry that quotes
    /// such a value passes it through here (or `echo(path:)`); JSON output does not.
    static func echo(_ value: String) -> String {
        TerminalText.echoed(value)
    }

    /// A file path a message echoes: escaped, and cut only past `PATH_MAX` (4096), so a
    /// real path is always shown whole.
    static func echo(path: String) -> String {
        TerminalText.escaped(path, limit: 4096)
    }

    /// A sentence from elsewhere (a plugin's report, a program's reason) that already
    /// quotes its values: escaped, so it stays one line without terminal codes.
    static func escape(_ sentence: String) -> String {
        TerminalText.escaped(sentence)
    }

    /// `1,000,000`: a number in a message, its digits grouped by three.
    static func number(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }
}
