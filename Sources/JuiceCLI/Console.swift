import JuiceMakerCore

/// A sink that drops everything (for `--quiet`).
struct NullSink: TextSink {
    var isTerminal: Bool { false }
    func write(_ text: String) {}
}

/// Where one run writes: results on stdout, errors on stderr, in the run's language.
struct Console: Sendable {
    let standardOutput: any TextSink
    let standardError: any TextSink
    let language: Language

    /// Writes `text` and a newline to stdout.
    func print(_ text: String) {
        standardOutput.write(text.hasSuffix("\n") ? text : text + "\n")
    }

    func print(_ text: LocalizedText) {
        print(text(language))
    }

    /// The one error line (and, for command-line mistakes, the usage line) on stderr.
    func report(_ error: CLIError) {
        var text = "\(Catalog.Errors.prefix(language)) \(error.message(language))\n"
        if let path = error.usage {
            text += HelpFormatter(globalOptions: CommandTable.globalOptions, language: language).usageFooter(path)
        }
        standardError.write(text)
    }
}

/// Lays out rows as columns separated by two spaces (display width aware for Korean
/// and emoji, which take two terminal cells).
enum TableLayout {
    static func render(_ rows: [[String]]) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], width(of: cell)) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - width(of: cell))
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    /// Terminal cells taken by `text`: wide for Hangul, CJK and emoji.
    static func width(of text: String) -> Int {
        text.unicodeScalars.reduce(0) { total, scalar in
            let value = scalar.value
            if scalar.properties.generalCategory == .nonspacingMark || value == 0xFE0F || value == 0x200D { return total }
            let wide = (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
                || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
                || (0xFF00...0xFF60).contains(value) || (0x1F300...0x1FAFF).contains(value)
            return total + (wide ? 2 : 1)
        }
    }
}
