import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// A sink that drops everything (for `--quiet`).
struct NullSink: TextSink {
    var isTerminal: Bool { false }
    func write(_ text: String) {}
}

/// Standard error as every diagnostic reaches it: each text has its URLs shown without
/// their secrets (`URLCredentials`), whoever wrote it (an error, a plugin's warning, a
/// delivery's line), so a URL a message quotes, or a path built from one, never prints
/// a password, a query value, a fragment or a token.
struct SecretFreeSink: TextSink {
    let base: any TextSink

    init(_ base: any TextSink) {
        self.base = base
    }

    var isTerminal: Bool { base.isTerminal }

    func write(_ text: String) {
        base.write(URLCredentials.redacted(text))
    }
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
    /// Messages echo what was typed or read (a name, a key, a path), so control
    /// characters are escaped here, once for every error: one line, no terminal codes.
    func report(_ error: CLIError) {
        var text = "\(Catalog.Errors.prefix(language)) \(TerminalText.escaped(error.message(language)))\n"
        if let path = error.usage {
            text += HelpFormatter(globalOptions: CommandTable.globalOptions, language: language).usageFooter(path)
        }
        standardError.write(text)
    }
}

/// Lays out rows as columns separated by two spaces, each cell with its control
/// characters escaped and measured in terminal cells (`TerminalText`).
enum TableLayout {
    static func render(_ rows: [[String]]) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        let shown = rows.map { $0.map(TerminalText.escaped) }
        var widths = [Int](repeating: 0, count: columns)
        for row in shown {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], TerminalText.width(of: cell)) }
        }
        return shown.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - TerminalText.width(of: cell))
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
