#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore
import JuiceMakerPluginKit

/// How a report is drawn on a terminal: its width, bar characters and colour.
struct ReportStyle: Sendable {
    let width: Int
    let ascii: Bool
    let color: Bool

    /// `COLUMNS`, else the terminal's size when stdout is one, else 80 (at least 40).
    static func width(environment: [String: String], isTerminal: Bool) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return max(40, columns) }
        if isTerminal {
            var size = winsize()
            let status = withUnsafeMutablePointer(to: &size) { ioctl(1, UInt(TIOCGWINSZ), $0) }
            if status == 0, size.ws_col > 0 { return max(40, Int(size.ws_col)) }
        }
        return 80
    }

    func bar(_ value: Int, of maximum: Int, cells: Int) -> String {
        guard maximum > 0, value > 0, cells > 0 else { return "" }
        let exact = Double(value) / Double(maximum) * Double(cells)
        if ascii { return String(repeating: "#", count: max(1, Int(exact.rounded()))) }
        let eighths = max(1, Int((exact * 8).rounded()))
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
        return String(repeating: "█", count: eighths / 8) + partial
    }

    func paint(_ text: String, _ code: String) -> String {
        color && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// One chart of the report: a heading and labelled bars (or one line saying why there
/// are none). The terminal and the SVG draw the same sections.
struct ReportSection: Sendable {
    struct Row: Sendable {
        let label: String
        /// What the bar stands for (0: no bar, as for a total).
        let value: Int
        /// What follows the bar.
        let text: String
        var highlighted = false
        var notes: [String] = []
    }

    let heading: String
    var rows: [Row] = []
    var empty: String?

    /// The report's sections, in the order they are shown.
    static func all(_ figures: ReportFigures, language: Language) -> [ReportSection] {
        var sections: [ReportSection] = []
        if !figures.journalIsEmpty, !figures.isQuiet {
            sections += [sales(figures, language), lost(figures, language), consumed(figures, language)]
        }
        return sections + [stock(figures, language)]
    }

    private static func sales(_ figures: ReportFigures, _ language: Language) -> ReportSection {
        var rows = figures.sales.map { sale in
            Row(
                label: Catalog.Results.name(sale.juice)(language), value: sale.cups,
                text: Catalog.Report.cups(sale.cups, share: sale.share)(language))
        }
        rows.append(
            Row(
                label: Catalog.Report.total(language), value: 0,
                text: Catalog.Report.totalCups(figures.cups, orders: figures.orders)(language)))
        return ReportSection(heading: Catalog.Report.sales(language), rows: rows)
    }

    private static func lost(_ figures: ReportFigures, _ language: Language) -> ReportSection {
        let rows = figures.lostSales.map { lost in
            Row(
                label: Catalog.Results.name(lost.juice)(language), value: lost.orders,
                text: Catalog.Report.lost(orders: lost.orders, cups: lost.cups)(language),
                notes: lost.shortages.map { Catalog.Report.short($0.fruit, missing: $0.missing, orders: $0.orders)(language) })
        }
        return ReportSection(
            heading: Catalog.Report.lostSales(language), rows: rows,
            empty: rows.isEmpty ? Catalog.Report.noLostSales(language) : nil)
    }

    private static func consumed(_ figures: ReportFigures, _ language: Language) -> ReportSection {
        let heading = Catalog.Report.consumed(figures.window.bucket)(language)
        guard !figures.consumed.isZero else { return ReportSection(heading: heading, empty: Catalog.Report.noConsumption(language)) }
        let rows = figures.periods.map { period in
            let total = Fruit.allCases.reduce(0) { $0 + period.consumed[$1] }
            let parts = period.consumed.nonZero.map { "\($0.fruit.emoji)\($0.amount)" }.joined(separator: " ")
            return Row(
                label: ReportWindow.label(hour: period.startHour, bucket: figures.window.bucket), value: total,
                text: parts.isEmpty ? "\(total)" : "\(total)  \(parts)")
        }
        return ReportSection(heading: heading, rows: rows)
    }

    private static func stock(_ figures: ReportFigures, _ language: Language) -> ReportSection {
        let rows = figures.outlook.map { item in
            var text = Catalog.Report.left(item.quantity)(language) + ", " + ReportText.lasts(item, window: figures.window)(language)
            if item.perHour > 0 { text += " (" + Catalog.Report.perHour(ReportText.rate(item.perHour))(language) + ")" }
            if item.runsOutFirst { text += "  ◀ " + Catalog.Report.runsOutFirst(language) }
            return Row(
                label: "\(item.fruit.emoji) \(Catalog.Results.name(item.fruit)(language))", value: item.quantity,
                text: text, highlighted: item.runsOutFirst)
        }
        return ReportSection(heading: Catalog.Report.stockNow(figures.window.rate)(language), rows: rows)
    }
}

/// The terminal report: a title, the sections as labelled bars fitting `style.width`,
/// and the footnote.
enum ReportText {
    static func render(_ figures: ReportFigures, style: ReportStyle, language: Language) -> String {
        var lines = wrap(title(figures, language), indent: 0, width: style.width).map { style.paint($0, "1") } + [""]
        if let line = notice(figures, language) { lines += wrap(line, indent: 0, width: style.width) + [""] }
        for section in ReportSection.all(figures, language: language) {
            lines += render(section, style: style) + [""]
        }
        lines.removeLast()
        if let footnote = footnote(figures, language) { lines += [""] + wrap(footnote, indent: 0, width: style.width) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func title(_ figures: ReportFigures, _ language: Language) -> String {
        let window = figures.window
        return Catalog.Report.title(
            ReportWindow.label(milliseconds: window.sinceMilliseconds), ReportWindow.label(milliseconds: window.untilMilliseconds),
            window.label, window.bucket)(language)
    }

    /// The line that says why there is little to show: an empty journal, a quiet window.
    static func notice(_ figures: ReportFigures, _ language: Language) -> String? {
        if figures.journalIsEmpty { return Catalog.Report.emptyJournal(language) }
        if figures.isQuiet { return Catalog.Report.quietWindow(ReportWindow.label(milliseconds: figures.window.sinceMilliseconds))(language) }
        return nil
    }

    static func footnote(_ figures: ReportFigures, _ language: Language) -> String? {
        figures.unknownEvents > 0 ? Catalog.Report.unknownEvents(figures.unknownEvents)(language) : nil
    }

    /// A heading, then one line per row: the label padded, the bar, the text; the bar
    /// takes what the width leaves. When the texts leave too little for a bar, each
    /// text moves under its bar, wrapped to the width.
    private static func render(_ section: ReportSection, style: ReportStyle) -> [String] {
        var lines = wrap(section.heading, indent: 0, width: style.width).map { style.paint($0, "1") }
        if let empty = section.empty { return lines + wrap(empty, indent: 2, width: style.width) }
        let rows = section.rows
        let labelWidth = rows.map { TerminalText.width(of: $0.label) }.max() ?? 0
        let textWidth = rows.map { TerminalText.width(of: $0.text) }.max() ?? 0
        let besideCells = style.width - 2 - labelWidth - 2 - 2 - textWidth
        let textBeside = besideCells >= 4
        let cells = textBeside ? besideCells : max(1, style.width - 2 - labelWidth - 2)
        let maximum = rows.map(\.value).max() ?? 0
        for row in rows {
            let emphasis = { (text: String) in row.highlighted ? style.paint(text, "1;31") : text }
            let bar = style.paint(style.bar(row.value, of: maximum, cells: cells), row.highlighted ? "31" : "36")
            let label = row.label + String(repeating: " ", count: labelWidth - TerminalText.width(of: row.label))
            if textBeside {
                let padding = String(repeating: " ", count: cells - TerminalText.width(of: style.bar(row.value, of: maximum, cells: cells)))
                lines.append("  \(emphasis(label))  \(bar)\(padding)  \(emphasis(row.text))")
            } else {
                lines.append("  \(emphasis(label))  \(bar)")
                lines += wrap(row.text, indent: 6, width: style.width).map(emphasis)
            }
            for note in row.notes {
                lines += wrap("· " + note, indent: textBeside ? labelWidth + 4 : 6, width: style.width)
            }
        }
        return lines
    }

    /// `text` in lines of at most `width` cells, each indented by `indent`, broken at spaces
    /// (a word longer than a line stands alone).
    static func wrap(_ text: String, indent: Int, width: Int) -> [String] {
        let room = max(10, width - indent)
        let margin = String(repeating: " ", count: width - indent >= 10 ? indent : max(0, width - 10))
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            let candidate = current.isEmpty ? word : current + " " + word
            if TerminalText.width(of: candidate) > room, !current.isEmpty {
                lines.append(margin + current)
                current = word
            } else {
                current = candidate
            }
        }
        if !current.isEmpty { lines.append(margin + current) }
        return lines
    }

    /// "about 5 hours", "out of stock now", or, for a fruit not used, that it lasts at
    /// least the window: never ∞, never a division by zero.
    static func lasts(_ item: ReportFigures.FruitOutlook, window: ReportWindow) -> LocalizedText {
        if item.quantity == 0 { return Catalog.Report.outNow }
        guard let hours = item.hoursLeft else { return Catalog.Report.notUsed(window.label, isDate: window.startsAtDate) }
        if hours < 1 { return Catalog.Report.underAnHour }
        if hours < 48 { return Catalog.Report.aboutHours(Int(hours.rounded())) }
        return Catalog.Report.aboutDays(Int((hours / 24).rounded()))
    }

    /// A rate with two significant decimals at most: `0.6`, `12.25`.
    static func rate(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        if fraction == 0 { return "\(hundredths / 100)" }
        return fraction % 10 == 0 ? "\(hundredths / 100).\(fraction / 10)" : "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
