import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// The CLI skips its own confirmation of what a plugin already shows the person: it
/// asks every plugin for its `shownKinds`, whatever the plugin's type.
@Suite(.tags(.unit)) struct PersonSeesTests {
    /// A plugin that is not the CLI notifier but shows orders to the person.
    final class Announcer: JuiceMakerPlugin {
        static let type = "announcer"
        static let configuration: [ConfigurationKey] = []
        let shownKinds: Set<EventKind>

        init(showing kinds: Set<EventKind>) { shownKinds = kinds }
        init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) { shownKinds = [] }
        func attach(to host: PluginHost) throws(PluginError) {}
        func shutdown(deadline: ContinuousClock.Instant) async {}
    }

    /// A plugin that shows the person nothing.
    final class Quiet: JuiceMakerPlugin {
        static let type = "quiet"
        static let configuration: [ConfigurationKey] = []

        init() {}
        init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {}
        func attach(to host: PluginHost) throws(PluginError) {}
        func shutdown(deadline: ContinuousClock.Instant) async {}
    }

    private func built(_ plugin: any JuiceMakerPlugin) -> BuiltPlugin {
        let type = Swift.type(of: plugin).type
        let entry = SubscriberEntry(
            path: "subscribers[0]", type: type, name: type, enabled: true,
            configuration: PluginConfiguration(path: "subscribers[0]", values: []))
        return BuiltPlugin(entry: entry, plugin: plugin)
    }

    @Test func anyPluginDeclaringTheCapabilityCounts() {
        let plugins = [built(Quiet()), built(Announcer(showing: [.juiceMade, .orderFailed]))]
        #expect(PluginRegistry.personSees(.juiceMade, among: plugins))
        #expect(PluginRegistry.personSees(.orderFailed, among: plugins))
        #expect(!PluginRegistry.personSees(.stockChanged, among: plugins))
        #expect(!PluginRegistry.personSees(.juiceMade, among: [built(Quiet())]))
    }
}
