import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// `JuiceProcess.main(plugins:)` takes the plugin types a package adds to the built-in
/// ones: each is selected by the config like a built-in type, and a list the config
/// could not select from without doubt is refused before anything runs.
@Suite(.tags(.unit)) struct PluginListTests {
    /// An observer of a package of its own, with one key.
    final class Tally: EventObserver {
        static let labelKey = ConfigurationKey("label", .string([.nonEmpty("label")]), required: true, description: "A label.")
        static let declaration = PluginDeclaration.observer(Tally.self, type: "tally", configuration: [labelKey])
        init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {}
        func attach(to host: PluginHost) throws(PluginError) {}
        func shutdown(deadline: ContinuousClock.Instant) async {}
    }

    /// A declaration of type `type` with keys named `keys`.
    private func declaration(_ type: String, keys: [String] = []) -> PluginDeclaration {
        PluginDeclaration.observer(
            Tally.self, type: type, configuration: keys.map { ConfigurationKey($0, .boolean, description: "A key.") })
    }

    @Test func theBuiltInListIsJuicesOwnAndMakesARegistry() throws {
        #expect(JuiceProcess.builtInPlugins.map(\.type) == PluginRegistry.standard.typeNames)
        #expect(JuiceProcess.builtInPlugins.map(\.type) == ["logger", "cli-notifier", "webhook", "command", "nats", "metrics"])
        let registry = try PluginRegistry(checking: JuiceProcess.builtInPlugins)
        #expect(registry.typeNames == PluginRegistry.standard.typeNames)
    }

    @Test func anAddedTypeIsSelectedByTheConfigAndListedInTheSchema() throws {
        let registry = try PluginRegistry(checking: JuiceProcess.builtInPlugins + [Tally.declaration])
        let text = #"{"subscribers": [{"type": "tally", "label": "x"}, {"type": "logger", "path": "juice.log"}]}"#
        let config = try ConfigValidator(registry: registry, source: .builtIn, environment: [:]).load(text)
        #expect(config.subscribers.map(\.type) == ["tally", "logger"])
        #expect(config.subscribers.first?.configuration["label"] == .string("x"))
        // Its keys are checked like a built-in type's.
        #expect(throws: ConfigurationError.self) {
            try ConfigValidator(registry: registry, source: .builtIn, environment: [:]).load(#"{"subscribers": [{"type": "tally"}]}"#)
        }
        #expect(ConfigSchema.text(registry).contains(#""const": "tally""#))
        // The built-in registry does not know it.
        #expect(throws: ConfigurationError.self) {
            try ConfigValidator(registry: .standard, source: .builtIn, environment: [:]).load(text)
        }
    }

    @Test func aListTheConfigCannotSelectFromIsRefused() {
        let builtIn = JuiceProcess.builtInPlugins
        let cases: [([PluginDeclaration], PluginRegistry.ListError)] = [
            (builtIn + [declaration("webhook")], .typeTwice("webhook")),
            ([declaration("tally"), declaration("tally")], .typeTwice("tally")),
            ([declaration("")], .unnamedType),
            ([declaration("tally", keys: ["label", "label"])], .keyTwice("label", type: "tally")),
            ([declaration("tally", keys: ["enabled"])], .commonKey("enabled", type: "tally")),
            ([declaration("tally", keys: ["name"])], .commonKey("name", type: "tally")),
            ([declaration("tally", keys: ["type"])], .commonKey("type", type: "tally")),
        ]
        for (list, expected) in cases {
            #expect(throws: expected) { try PluginRegistry(checking: list) }
        }
        // One line that says what and how to fix it, with a hostile name escaped.
        let line = PluginRegistry.ListError.typeTwice("a\u{1B}[2Jb\n").description
        #expect(line == #"two plugin types are named "a\u001b[2Jb\n"; fix the list of plugin types given to JuiceProcess.main(plugins:)"#)
        #expect(PluginRegistry.ListError.exitCode == 70)
    }
}
