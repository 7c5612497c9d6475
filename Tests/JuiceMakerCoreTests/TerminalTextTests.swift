import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

/// Display width by Unicode East Asian Width (UAX #11) and emoji presentation, and
/// control characters escaped.
@Suite(.tags(.unit)) struct TerminalTextTests {
    @Test(
        "cells per text",
        arguments: [
            ("cafe", 4), ("☕cafe", 6), ("𠀀ext", 5), ("딸기쥬스", 8), ("ＡＢ", 4), ("ｱｲ", 2),
            ("🍓", 2), ("❤", 1), ("❤️", 2), ("1️⃣", 2), ("🇰🇷", 2), ("👨‍👩‍👧", 2), ("👍🏽", 2),
            ("e\u{301}", 1), ("a\u{200B}b", 2), ("a\u{200D}b", 2), ("\u{1112}\u{1161}\u{11AB}", 2), ("é", 1), ("", 0),
            ("a\u{1B}[31m", 7), ("\u{9B}", 6), ("\t", 2),
        ])
    func widths(text: String, cells: Int) {
        #expect(TerminalText.width(of: text) == cells)
    }

    @Test("controls, DEL, C1 controls, line separators and bidi controls are escaped; the rest is kept")
    func escaping() {
        #expect(TerminalText.escaped("a\u{1B}[31mb\n\t\r\u{7F}\u{85}\u{9B}\u{2028}\u{202E}") == #"a\e[31mb\n\t\r\u{7f}\u{85}\u{9b}\u{2028}\u{202e}"#)
        #expect(TerminalText.escaped("딸기 ☕ e\u{301} 🍓") == "딸기 ☕ e\u{301} 🍓")
    }

    @Test("an echoed value is escaped and cut at the limit, never inside an escape")
    func echoedValuesAreCut() {
        #expect(TerminalText.escaped("kiwi", limit: 80) == "kiwi")
        #expect(TerminalText.escaped(String(repeating: "a", count: 100_000), limit: 80) == String(repeating: "a", count: 80) + "…")
        #expect(TerminalText.escaped(String(repeating: "a", count: 80), limit: 80) == String(repeating: "a", count: 80))
        #expect(TerminalText.escaped("abc\u{1B}def", limit: 4) == "abc…", "the escape \\e does not fit: cut before it")
        #expect(TerminalText.escaped("ki\u{1B}]0;PWNED\u{7}wi", limit: 80) == #"ki\e]0;PWNED\u{7}wi"#)
        #expect(TerminalText.echoed("딸기\n쥬스") == #"딸기\n쥬스"#)
        #expect(TerminalText.echoed(String(repeating: "딸", count: 81)).count == TerminalText.echoLimit + 1)
    }
}
