import JuiceMakerCore

/// `juice report --svg FILE`: the report's sections as one standalone SVG image, with
/// no scripts and no external resources; every text is escaped for XML.
enum ReportSVG {
    private static let width = 960
    private static let rowHeight = 22
    private static let labelWidth = 190
    private static let barWidth = 360
    private static let margin = 24

    static func render(_ figures: ReportFigures, language: Language) -> String {
        var body: [String] = []
        var y = margin + 8
        body.append(text(ReportText.title(figures, language), x: margin, y: y, size: 18, weight: "bold"))
        y += 30
        if let notice = ReportText.notice(figures, language) {
            body.append(text(notice, x: margin, y: y))
            y += 30
        }
        for section in ReportSection.all(figures, language: language) {
            body.append(text(section.heading, x: margin, y: y, size: 15, weight: "bold"))
            y += rowHeight + 4
            if let empty = section.empty {
                body.append(text(empty, x: margin + 12, y: y, fill: "#555555"))
                y += rowHeight + 14
                continue
            }
            let maximum = section.rows.map(\.value).max() ?? 0
            for row in section.rows {
                let fill = row.highlighted ? "#c62828" : "#26a69a"
                body.append(text(row.label, x: margin + 12, y: y, weight: row.highlighted ? "bold" : "normal"))
                if maximum > 0, row.value > 0 {
                    let length = max(1, Int((Double(row.value) / Double(maximum) * Double(barWidth)).rounded()))
                    body.append(#"<rect x="\#(margin + labelWidth)" y="\#(y - 13)" width="\#(length)" height="16" rx="2" fill="\#(fill)"/>"#)
                }
                body.append(
                    text(
                        row.text, x: margin + labelWidth + barWidth + 12, y: y,
                        fill: row.highlighted ? "#c62828" : "#222222", weight: row.highlighted ? "bold" : "normal"))
                y += rowHeight
                for note in row.notes {
                    body.append(text("· " + note, x: margin + labelWidth, y: y, size: 12, fill: "#555555"))
                    y += rowHeight - 4
                }
            }
            y += 14
        }
        if let footnote = ReportText.footnote(figures, language) {
            body.append(text(footnote, x: margin, y: y, size: 12, fill: "#555555"))
            y += rowHeight
        }
        let height = y + margin
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
            font-family="sans-serif" font-size="13" lang="\(language == .korean ? "ko" : "en")">
            <title>\(escaped(ReportText.title(figures, language)))</title>
            <rect width="100%" height="100%" fill="#ffffff"/>
            \(body.joined(separator: "\n"))
            </svg>

            """
    }

    private static func text(
        _ content: String, x: Int, y: Int, size: Int = 13, fill: String = "#222222", weight: String = "normal"
    ) -> String {
        #"<text x="\#(x)" y="\#(y)" font-size="\#(size)" font-weight="\#(weight)" fill="\#(fill)">\#(escaped(content))</text>"#
    }

    /// `text` safe inside an XML element or attribute: the five markup characters as
    /// entities, and control characters XML 1.0 cannot hold dropped.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default:
                if scalar.value >= 0x20, scalar.value != 0x7F, scalar.value != 0xFFFE, scalar.value != 0xFFFF {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
