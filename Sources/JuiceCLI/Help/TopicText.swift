import JuiceMakerPluginKit

/// A `HelpTopic` for a terminal: paragraphs filled to `width` columns, items as a term
/// on its own line with the text indented under it, literal lines indented as they are.
struct TopicText: Sendable {
    var width = 80

    func render(_ topic: HelpTopic) -> String {
        var text = "\(topic.heading)\n"
        for block in topic.blocks {
            text += "\n"
            switch block {
            case .paragraph(let paragraph):
                text += fill(paragraph, indent: 2)
            case .items(let items):
                for item in items {
                    text += "  \(item.term)\n" + fill(item.text, indent: 6)
                }
            case .literal(let lines):
                text += lines.map { "    \($0)\n" }.joined()
            }
        }
        return text
    }

    /// The list `juice help topics` prints: each topic's name and summary.
    func list(_ topics: [HelpTopic], heading: String) -> String {
        let column = (topics.map { TerminalText.width(of: $0.name) }.max() ?? 0) + 4
        var text = "\(heading):\n"
        for topic in topics {
            let padding = String(repeating: " ", count: column - TerminalText.width(of: topic.name))
            text += "  \(topic.name)\(padding)\(topic.summary)\n"
        }
        return text
    }

    /// `paragraph`'s words in lines of at most `width` columns (a longer word gets a
    /// line of its own), each line indented by `indent` spaces.
    func fill(_ paragraph: String, indent: Int) -> String {
        let margin = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
            let wordWidth = TerminalText.width(of: String(word))
            if lineWidth > 0, indent + lineWidth + 1 + wordWidth > width {
                lines.append(line)
                line = ""
                lineWidth = 0
            }
            line += lineWidth == 0 ? String(word) : " " + word
            lineWidth += lineWidth == 0 ? wordWidth : 1 + wordWidth
        }
        if lineWidth > 0 { lines.append(line) }
        return lines.map { margin + $0 + "\n" }.joined()
    }
}
