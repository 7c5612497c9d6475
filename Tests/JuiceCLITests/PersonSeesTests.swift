import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing
@testable import JuiceCLI

/// The CLI skips its own confirmation of what a plugin already shows the person: it
/// asks every subscriber's declaration for its `shownKinds`, whatever the plugin's type.
@Suite(.tags(.unit)) struct PersonSeesTests {
    /// A plugin that is not the CLI notifier but shows the person the kinds of its `events`.
    final class Announcer: EventObserver {
        static let events = ConfigurationKey.events()
        static let declaration = PluginDeclaration.observer(
            Announcer.self, type: "announcer", configuration: [events],
            shownKinds: { section in (try? section.eventKinds(events)) ?? [] })

        init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {}
        func attach(to host: PluginHost) throws(PluginError) {}
        func shutdown(deadline: ContinuousClock.Instant) async {}
    }

    /// A plugin that shows the person nothing.
    final class Quiet: EventObserver {
        static let declaration = PluginDeclaration.observer(Quiet.self, type: "quiet", configuration: [])

        init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {}
        func attach(to host: PluginHost) throws(PluginError) {}
        func shutdown(deadline: ContinuousClock.Instant) async {}
    }

    private func built(_ declaration: PluginDeclaration, showing kinds: [EventKind] = []) throws -> BuiltPlugin {
        let values = kinds.isEmpty ? [] : [JSONMember(key: "events", value: .array(kinds.map { .string($0.rawValue) }))]
        let entry = SubscriberEntry(
            path: "subscribers[0]", type: declaration.type, name: declaration.type, enabled: true,
            configuration: PluginConfiguration(path: "subscribers[0]", values: values))
        return try BuiltPlugin(entry: entry, declaration: declaration, context: Rig().context())
    }

    @Test func anyPluginDeclaringTheCapabilityCounts() throws {
        let plugins = [try built(Quiet.declaration), try built(Announcer.declaration, showing: [.juiceMade, .orderFailed])]
        #expect(PluginRegistry.personSees(.juiceMade, among: plugins))
        #expect(PluginRegistry.personSees(.orderFailed, among: plugins))
        #expect(!PluginRegistry.personSees(.stockChanged, among: plugins))
        #expect(!PluginRegistry.personSees(.juiceMade, among: [try built(Quiet.declaration)]))
    }
}
