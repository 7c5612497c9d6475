import JuiceMakerCore

/// Text as a terminal shows it: characters that would steer the terminal made visible,
/// and the number of cells the text takes.
///
/// The one place that decides display width: tables (`TableLayout`), help listings and
/// anything else that pads text to line it up measure with `width(of:)`.
public enum TerminalText {
    /// How many characters of an echoed value (a word typed, a name or value read from
    /// the config or from another machine) a message shows before cutting it with `…`.
    package static let echoLimit = 80

    /// `text` with every character that could move the cursor, change colours, reorder
    /// text or end a line written as an escape: C0 and C1 controls and DEL (`\n`, `\t`,
    /// `\r`, `\e` for ESC, else `\u{9b}`), U+2028/U+2029, and the bidirectional controls.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                result.append(contentsOf: escape(scalar).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `text` escaped as `escaped(_:)` does and cut to at most `limit` characters of
    /// the escaped text, ending with `…` when it was cut (never inside an escape).
    /// For anything a message echoes: one line, no terminal codes, a bounded length.
    package static func escaped(_ text: String, limit: Int) -> String {
        var result = ""
        var count = 0
        for character in text {
            let shown = escaped(String(character))
            let length = shown.count
            if count + length > limit {
                return result + "…"
            }
            result += shown
            count += length
        }
        return result
    }

    /// `text` as a message echoes a value: escaped and cut at `echoLimit` characters.
    public static func echoed(_ text: String) -> String {
        escaped(text, limit: echoLimit)
    }

    /// Terminal cells `escaped(text)` takes, by Unicode East Asian Width (UAX #11) and
    /// emoji presentation (UTS #51), one grapheme cluster at a time:
    /// - wide (W) and fullwidth (F) characters take 2 (Hangul, CJK, `☕`, `𠀀`);
    /// - a cluster shown as an emoji takes 2: an Emoji_Presentation character (`🍓`),
    ///   an emoji with VS16 (`❤️`, `1️⃣`), a flag, a ZWJ sequence (`👨‍👩‍👧`);
    /// - combining marks (Mn, Me), format characters (Cf: ZWJ, ZWSP, …) and Hangul
    ///   medial vowels and final consonants take 0;
    /// - everything else, ambiguous (A) characters included, takes 1;
    /// - a control character takes the width of its escape (`\e`: 2, `\u{9b}`: 6).
    package static func width(of text: String) -> Int {
        escaped(text).reduce(0) { $0 + width(of: $1) }
    }

    private static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation })
            || (first.properties.isEmoji && scalars.contains("\u{FE0F}"))
        {
            return 2
        }
        return scalars.reduce(0) { $0 + width(of: $1) }
    }

    private static func width(of scalar: Unicode.Scalar) -> Int {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        let value = scalar.value
        // Hangul Jamo medial vowels and final consonants join the leading consonant's cells.
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
        return isWide(value) ? 2 : 1
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        TerminalControl.steers(scalar)
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": "\\n"
        case "\t": "\\t"
        case "\r": "\\r"
        case "\u{1B}": "\\e"
        default: "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }

    /// East_Asian_Width W or F (UAX #11), from Unicode 14's EastAsianWidth.txt, with
    /// the unassigned code points of the CJK blocks that the file also marks W.
    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
        0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
        0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
        0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55, 0x2E80...0x2E99,
        0x2E9B...0x2EF3, 0x2F00...0x2FD5, 0x2FF0...0x2FFB, 0x3000...0x303E, 0x3041...0x3096, 0x3099...0x30FF,
        0x3105...0x312F, 0x3131...0x318E, 0x3190...0x31E3, 0x31F0...0x321E, 0x3220...0x3247, 0x3250...0x4DBF,
        0x4E00...0xA48C, 0xA490...0xA4C6, 0xA960...0xA97C, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
        0xFE30...0xFE52, 0xFE54...0xFE66, 0xFE68...0xFE6B, 0xFF01...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4,
        0x16FF0...0x16FF1, 0x17000...0x187F7, 0x18800...0x18CD5, 0x18D00...0x18D08, 0x1AFF0...0x1AFF3,
        0x1AFF5...0x1AFFB, 0x1AFFD...0x1AFFE, 0x1B000...0x1B122, 0x1B150...0x1B152, 0x1B164...0x1B167,
        0x1B170...0x1B2FB, 0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A,
        0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251, 0x1F260...0x1F265,
        0x1F300...0x1F320, 0x1F32D...0x1F335, 0x1F337...0x1F37C, 0x1F37E...0x1F393, 0x1F3A0...0x1F3CA,
        0x1F3CF...0x1F3D3, 0x1F3E0...0x1F3F0, 0x1F3F4...0x1F3F4, 0x1F3F8...0x1F43E, 0x1F440...0x1F440,
        0x1F442...0x1F4FC, 0x1F4FF...0x1F53D, 0x1F54B...0x1F54E, 0x1F550...0x1F567, 0x1F57A...0x1F57A,
        0x1F595...0x1F596, 0x1F5A4...0x1F5A4, 0x1F5FB...0x1F64F, 0x1F680...0x1F6C5, 0x1F6CC...0x1F6CC,
        0x1F6D0...0x1F6D2, 0x1F6D5...0x1F6D7, 0x1F6DD...0x1F6DF, 0x1F6EB...0x1F6EC, 0x1F6F4...0x1F6FC,
        0x1F7E0...0x1F7EB, 0x1F7F0...0x1F7F0, 0x1F90C...0x1F93A, 0x1F93C...0x1F945, 0x1F947...0x1F9FF,
        0x1FA70...0x1FA74, 0x1FA78...0x1FA7C, 0x1FA80...0x1FA86, 0x1FA90...0x1FAAC, 0x1FAB0...0x1FABA,
        0x1FAC0...0x1FAC5, 0x1FAD0...0x1FAD9, 0x1FAE0...0x1FAE7, 0x1FAF0...0x1FAF6, 0x20000...0x2FFFD,
        0x30000...0x3FFFD,
    ]
}
