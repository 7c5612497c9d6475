import JuiceMakerPluginKit
import Testing

/// Display width by Unicode East Asian Width (UAX #11) and emoji presentation, and
/// control characters escaped.
@Suite struct TerminalTextTests {
    @Test("cells per text", arguments: [
        ("cafe", 4), ("☕cafe", 6), ("𠀀ext", 5), ("딸기쥬스", 8), ("ＡＢ", 4), ("ｱｲ", 2),
        ("🍓", 2), ("❤", 1), ("❤️", 2), ("1️⃣", 2), ("🇰🇷", 2), ("👨‍👩‍👧", 2), ("👍🏽", 2),
        ("e\u{301}", 1), ("a\u{200B}b", 2), ("a\u{200D}b", 2), ("\u{1112}\u{1161}\u{11AB}", 2), ("é", 1), ("", 0),
        ("a\u{1B}[31m", 11), ("\t", 2),
    ])
    func widths(text: String, cells: Int) {
        #expect(TerminalText.width(of: text) == cells)
    }

    @Test("controls, DEL, C1 controls, line separators and bidi controls are escaped; the rest is kept")
    func escaping() {
        #expect(TerminalText.escaped("a\u{1B}[31mb\n\t\r\u{7F}\u{85}\u{2028}\u{202E}") == #"a\u{1B}[31mb\n\t\r\u{7F}\u{85}\u{2028}\u{202E}"#)
        #expect(TerminalText.escaped("딸기 ☕ e\u{301} 🍓") == "딸기 ☕ e\u{301} 🍓")
    }
}
