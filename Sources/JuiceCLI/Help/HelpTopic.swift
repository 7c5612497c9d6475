/// Reference a user looks up: `juice help <name>` prints it, and `juice help --man` makes
/// it a section of `juice(1)`. A topic is declared once, as data (`HelpTopics`), and both
/// renderings (`TopicText`, `ManualPage`) read the declaration, so they cannot disagree.
struct HelpTopic: Sendable {
    /// The word after `juice help` (`exit-codes`).
    let name: String
    /// The manual page's section heading (`EXIT STATUS`).
    let heading: String
    /// One line for the list of topics.
    let summary: String
    let blocks: [HelpBlock]
}

/// One piece of a topic. Text is plain: no markup, no terminal control characters.
enum HelpBlock: Sendable {
    /// A paragraph, filled to the width it is shown at.
    case paragraph(String)
    /// Terms and what they mean (`74` → `the store could not be read or written`).
    case items([HelpItem])
    /// Lines shown as they are (commands, a file's contents).
    case literal([String])
}

/// A term of a `HelpBlock.items` list.
struct HelpItem: Sendable {
    let term: String
    let text: String

    init(_ term: String, _ text: String) {
        self.term = term
        self.text = text
    }
}
