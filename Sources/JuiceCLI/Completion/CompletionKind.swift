import JuiceMakerCore

/// What may be typed in a place on the command line, declared with the argument or
/// option (`ArgumentSpec.completion`, `OptionSpec.completion`), for completion scripts.
enum CompletionKind: Sendable, Equatable {
    case nothing
    /// A path: the shell completes file names itself.
    case files
    /// One of these words.
    case words([String])
    /// A juice: its id or Korean name.
    case juices
    /// A fruit: its id or Korean name.
    case fruits
    /// `fruit=`: a fruit id and the equals sign, the amount still to type.
    case fruitAmounts
    /// A subscriber's name from the config.
    case subscribers

    /// The words of this kind (`subscribers` are the config's: `configured`).
    func candidates(configured subscribers: [String]) -> [String] {
        switch self {
        case .nothing, .files: []
        case .words(let words): words
        case .juices: Juice.allCases.map(\.id) + Juice.allCases.map(\.koreanName)
        case .fruits: Fruit.allCases.map(\.id) + Fruit.allCases.map(\.koreanName)
        case .fruitAmounts: Fruit.allCases.map { "\($0.id)=" }
        case .subscribers: subscribers
        }
    }
}
