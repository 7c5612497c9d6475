import JuiceMakerCore

/// A text for the person, in both languages `juice` speaks. Every message the CLI
/// prints is one of these, made by `Catalog`, so none exists in one language only.
struct LocalizedText: Sendable, Equatable {
    let english: String
    let korean: String

    init(_ english: String, ko korean: String) {
        self.english = english
        self.korean = korean
    }

    /// The text in `language`.
    func callAsFunction(_ language: Language) -> String {
        language == .korean ? korean : english
    }
}

/// The one catalog of everything `juice` says, in English and Korean. Its members
/// live in extensions by theme: help texts, errors, results.
enum Catalog {}
