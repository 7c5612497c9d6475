import JuiceMakerPluginKit

/// The topics `juice help <topic>` shows and `juice(1)` carries, in the manual's order.
/// Exit codes, the environment and the config keys are generated from their declarations
/// (`ExitCode`, `EnvironmentVariables`, `ConfigKeys` and each plugin's `configuration`);
/// the others are written here, once.
struct HelpTopics: Sendable {
    let registry: PluginRegistry

    var all: [HelpTopic] {
        [
            config, Self.store, Self.delivery, Self.fleet, Self.report, Self.metrics, Self.events, exitCodes, environment, Self.files,
            Self.signals, Self.examples,
        ]
    }

    /// The topics' names, known without building them (the parser reads these).
    static let names: Set<String> = [
        "config", "store", "delivery", "fleet", "report", "metrics", "events", "exit-codes", "environment", "files", "signals", "examples",
    ]

    func topic(named name: String) -> HelpTopic? {
        all.first { $0.name == name }
    }

    var exitCodes: HelpTopic {
        HelpTopic(
            name: "exit-codes", heading: "EXIT STATUS", summary: "what each exit status means (scripts may rely on them)",
            blocks: [
                .items(ExitCode.allCases.sorted { $0.rawValue < $1.rawValue }.map { HelpItem(String($0.rawValue), $0.reference) }),
                .paragraph(
                    "Every error is one line on stderr that says what was wrong and how to fix it; the store is left as it was."),
            ])
    }

    var environment: HelpTopic {
        HelpTopic(
            name: "environment", heading: "ENVIRONMENT", summary: "the environment variables juice reads",
            blocks: [.items(EnvironmentVariables.all)])
    }

    /// Every config key, from the declarations the checker uses: the top level, then
    /// every subscriber's common keys, then each plugin type's own.
    var config: HelpTopic {
        var blocks: [HelpBlock] = [
            .paragraph(
                "Where juice looks, first match wins: --config PATH, $JUICE_MAKER_CONFIG, ./config/juice-maker.json, "
                    + "$XDG_CONFIG_HOME/juice-maker/config.json (else ~/.config/juice-maker/config.json), then built-in defaults. "
                    + "juice config schema prints the JSON Schema generated from the same declarations as this list."),
            .paragraph(
                "juice config show names the file it used and prints every key the config declares, defaults filled in, secrets as ***, then "
                    + "where each value came from: the config file, the environment (a ${NAME} in it), default, or for store.path "
                    + "--store, JUICE_MAKER_STORE or --in-memory. With --json: {\"file\", \"config\", \"from\": {\"store.path\": "
                    + "\"JUICE_MAKER_STORE\", ...}}. A key with no value and no default is left out (from still names it)."),
            .paragraph(
                "What config show prints as the config (the config member with --json) is a config: saved to a file, "
                    + "juice --config FILE config check accepts it. A value shown as *** is the string *** in the copy: taken "
                    + "where any string is (a token, an environment value, an argument, a URL's user:password), but a webhook "
                    + "secret (base64 key material), or a ${NAME} in a key that has a form of its own (one of a list, a URL), is "
                    + "refused there, naming the key: write the value or its ${NAME} back."),
            .paragraph(
                "The check is strict: keys are compared exactly, case included ({\"Language\": \"ko\"} is an unknown key); an "
                    + "unknown key, a wrong type, an unknown subscriber type, a missing required key or a bad "
                    + "value is one error naming the file, the JSON path (subscribers[1].level) and what was expected (exit 78). "
                    + "\"${NAME}\" in a string takes the environment variable's value; secrets print as ***."),
            .items(ConfigKeys.topLevel(registry).flatMap { Self.items($0, parent: "") }),
            .paragraph("Every subscriber (an item of subscribers) has these keys, and those of its type:"),
            .items(ConfigKeys.commonSubscriber(registry).flatMap { Self.items($0, parent: "") }),
        ]
        for plugin in registry.declarations {
            blocks.append(.paragraph("type \"\(plugin.type)\":"))
            blocks.append(.items(plugin.configuration.flatMap { Self.items($0, parent: "") }))
        }
        return HelpTopic(name: "config", heading: "CONFIGURATION", summary: "where the config is read from, and every key", blocks: blocks)
    }

    /// A key's line, and its object's keys under it (`store.path`).
    private static func items(_ key: ConfigurationKey, parent: String) -> [HelpItem] {
        let path = parent.isEmpty ? key.name : "\(parent).\(key.name)"
        var text = "\(summary(of: key.type))"
        if let value = key.defaultValue { text += ", default \(JSONWriter.compact(value))" }
        if key.isRequired { text += ", required" }
        text += ". \(key.description)"
        var items = [HelpItem(path, text)]
        if case .object(let keys) = key.type, key.name != "subscribers" {
            items += keys.flatMap { Self.items($0, parent: path) }
        }
        return items
    }

    /// The type in a few words: `one of auto, ko, en`, `number 0 to 60 seconds`.
    static func summary(of type: ConfigurationType) -> String {
        switch type {
        case .string: "string"
        case .oneOf(let allowed): "one of " + allowed.joined(separator: ", ")
        case .boolean: "true or false"
        case .number(let minimum, let exclusive, let maximum, let unit):
            "number " + (exclusive ? "above " : "") + "\(number(minimum)) to \(number(maximum))" + (unit.map { " \($0)" } ?? "")
        case .integer(let range): "whole number \(range.lowerBound) to \(range.upperBound)"
        case .list(let item, _, _): "list of " + summary(of: item)
        case .dictionary(_, let values): "object of " + summary(of: values)
        case .object: "object"
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
