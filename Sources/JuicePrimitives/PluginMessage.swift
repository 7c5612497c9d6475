/// A message for the person in both languages `juice` speaks: a plugin's (the host's
/// catalog cannot know a plugin's words) or a transport's (why a request failed). The
/// host picks the language (`message(language)`, in JuiceMakerCore).
public struct PluginMessage: Sendable, Equatable, CustomStringConvertible {
    public let english: String
    public let korean: String

    public init(english: String, korean: String) {
        self.english = english
        self.korean = korean
    }

    /// Text that is the same in every language: a program's own output, a name.
    public init(untranslated text: String) {
        self.init(english: text, korean: text)
    }

    /// The English text, for logs and tests.
    public var description: String { english }
}
