import JuiceMakerCore

/// The global options of one run, after the environment had its say.
struct GlobalSettings: Sendable {
    let configPath: String?
    /// `--store PATH` (the environment's `JUICE_MAKER_STORE` is read by `StoreLocation`).
    let storePath: String?
    let inMemory: Bool
    /// `--lang`; `nil` lets the config, then the locale decide.
    let language: Language?
    let json: Bool
    let quiet: Bool
    /// `--no-color`, `NO_COLOR` (any non-empty value) and `TERM=dumb` forbid colour.
    let colorAllowed: Bool

    init(_ invocation: Invocation, environment: [String: String]) throws(CLIError) {
        let options = GlobalOptions(invocation)
        configPath = try options.config.value
        storePath = try options.store.value
        inMemory = try options.inMemory.value
        json = try options.json.value
        quiet = try options.quiet.value
        colorAllowed = try !options.noColor.value && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
        language = try options.lang.value
    }

    /// The `--lang` value in `words`, read leniently, for messages about a command line
    /// that did not parse.
    static func languageHint(in words: [String]) -> Language? {
        for (index, word) in words.enumerated() {
            if word.hasPrefix("--lang=") { return Language(rawValue: String(word.dropFirst(7))) }
            if word == "--lang", index + 1 < words.count { return Language(rawValue: words[index + 1]) }
        }
        return nil
    }
}
