/// The global options typed on the line being completed that decide what is offered:
/// `--config`, `--store`, `--in-memory` and `--lang`. `juice completions complete`
/// runs with them in front of its own (`JuiceCommand.impliedGlobalArguments`), so it
/// reads the config the command being typed would read.
enum CompletionSettings {
    /// The long names of the options that are carried over.
    static let names: Set<String> = {
        let options = GlobalOptions.unbound
        return [options.config.spec.name, options.store.spec.name, options.inMemory.spec.name, options.lang.spec.name]
    }()

    /// Those options among `words` (what follows `juice` on the line) before the word
    /// under the cursor, as typed: `["--config", "a.json", "--lang=ko"]`, each once (the
    /// last spelling, as a line still being typed may repeat one), and none of `given`
    /// (the names `juice completions complete` was itself given). Nothing after `--`.
    static func arguments(in words: [String], besides given: Set<String> = []) -> [String] {
        var byName: [(name: String, words: [String])] = []
        for (name, words) in typedOptions(in: words) where !given.contains(name) {
            byName.removeAll { $0.name == name }
            byName.append((name, words))
        }
        return byName.flatMap(\.words)
    }

    /// The carried-over options typed before the word under the cursor, in order.
    private static func typedOptions(in words: [String]) -> [(String, [String])] {
        let typed = Array(words.dropLast())
        var found: [(String, [String])] = []
        var index = 0
        while index < typed.count, typed[index] != "--" {
            let word = typed[index]
            index += 1
            guard word.hasPrefix("--") else { continue }
            let name = String(word.dropFirst(2).prefix { $0 != "=" })
            guard names.contains(name), let option = CommandTable.globalOptions.first(where: { $0.name == name }) else { continue }
            guard option.takesValue, !word.contains("=") else {
                found.append((name, [word]))
                continue
            }
            // The value is typed, not still under the cursor.
            guard index < typed.count else { break }
            found.append((name, [word, typed[index]]))
            index += 1
        }
        return found
    }
}
