/// Every environment variable `juice` reads, declared once: `juice help environment` and
/// `juice(1)`'s ENVIRONMENT list them, and a test checks that the sources read no
/// variable that is not declared here.
enum EnvironmentVariables {
    static let all: [HelpItem] = [
        HelpItem("JUICE_MAKER_STORE", "The store file, when neither --in-memory nor --store is given."),
        HelpItem("JUICE_MAKER_CONFIG", "The config file, when --config is not given."),
        HelpItem(
            "XDG_STATE_HOME",
            "The default store is $XDG_STATE_HOME/juice-maker/juice.db (an absolute path only; else under $HOME/.local/state)."),
        HelpItem(
            "XDG_CONFIG_HOME",
            "The config is looked for in $XDG_CONFIG_HOME/juice-maker/config.json (an absolute path only; else under $HOME/.config)."),
        HelpItem("HOME", "The home directory, for the defaults above and for paths that begin with ~/ in the config."),
        HelpItem(
            "LC_ALL, LC_MESSAGES, LANG",
            "The language of messages when neither --lang nor the config's language says: the first that is set; a language code "
                + "ko (ko_KR.UTF-8) is Korean, anything else English."),
        HelpItem("NO_COLOR", "Set and not empty: no colour, as --no-color."),
        HelpItem("TERM", "dumb: no colour."),
        HelpItem("COLUMNS", "The width juice report lays its charts out for (at least 40)."),
        HelpItem("PATH", "Where a command subscriber's program is looked up when its name has no slash."),
    ]

    /// The names the items declare (`LC_ALL, LC_MESSAGES, LANG` is three).
    static var names: Set<String> {
        Set(all.flatMap { $0.term.split(separator: ",").map { $0.trimmingCharacters() } })
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
