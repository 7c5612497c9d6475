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
enum Catalog {
    /// The short name every theme's entries are written with.
    typealias T = LocalizedText
}

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

    /// `'name'이라는` or `'name'라는`: the particle after a quoted name, `이라는` when the
    /// name's last syllable ends in a consonant (a Hangul syllable's final, read from
    /// its code point: U+AC00 + 28 × n has none), `라는` when it does not; `otherwise`
    /// when the name does not end in a Hangul syllable.
    static func called(_ name: String, otherwise: String = "이라는") -> String {
        endsInConsonant(name).map { $0 ? "이라는" : "라는" } ?? otherwise
    }

    /// `을` or `를` after `name`, the same way; `을(를)` when it does not end in a Hangul syllable.
    static func object(_ name: String) -> String {
        endsInConsonant(name).map { $0 ? "을" : "를" } ?? "을(를)"
    }

    private static func endsInConsonant(_ name: String) -> Bool? {
        guard let last = name.unicodeScalars.last, (0xAC00...0xD7A3).contains(last.value) else { return nil }
        return (last.value - 0xAC00) % 28 != 0
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
