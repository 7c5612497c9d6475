import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

// The plugin from the article "Writing a plugin"
// (Sources/JuiceMakerPluginKit/JuiceMakerPluginKit.docc/WritingAPlugin.md), verbatim:
// if this stops compiling or behaving as described, the article is wrong.
public final class Tally: EventObserver {
    static let events = ConfigurationKey.events()  // declared once: checks, default, schema
    public static let declaration = PluginDeclaration.observer(
        Tally.self, type: "tally",  // selects it in config
        configuration: [events])  // besides type, name, enabled
    private let context: PluginContext
    private let kinds: Set<EventKind>?

    public init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        self.context = context
        kinds = try configuration.eventKinds(Self.events)  // errors name subscribers[i].events
    }

    public func attach(to host: PluginHost) throws(PluginError) {
        _ = try host.subscribe(context.name, delivery: .queued(), kinds: kinds) { envelope in
            self.context.standardError.write("\(envelope.sequence) \(envelope.event.kind)\n")
        }
    }

    public func shutdown(deadline: ContinuousClock.Instant) async {}
}

@Suite("The example plugin of the article Writing a plugin", .tags(.unit))
struct ReadmeExampleTests {
    @Test("it hears the kinds it asked for, in journal order, on its own queue")
    func examplePluginWorks() throws {
        let store = InMemoryStore()
        let maker = JuiceMaker(store: store)
        let sink = RecordingSink()
        let context = PluginContext(
            name: "tally", language: .english, colorAllowed: false, stateDirectory: "/tmp",
            environment: [:], standardOutput: sink, standardError: sink)
        let plugin = try Tally(
            configuration: PluginConfiguration(
                path: "subscribers[0]",
                values: [
                    JSONMember(key: "events", value: .array([.string("juiceMade"), .string("orderFailed")]))
                ]),
            context: context)
        try plugin.attach(to: PluginHost(maker: maker, journal: store, reportError: { _ in }))

        try maker.make(.mangoKiwi)
        try maker.make(.strawberry)
        #expect(maker.waitUntilIdle(timeout: .seconds(10)))

        let expected = try store.events(after: 0, limit: 100)
            .filter { $0.event.kind != .stockChanged }
            .map { "\($0.sequence) \($0.event.kind)" }
        #expect(sink.lines == expected)
        #expect(expected.count == 2)
    }

    @Test("a bad events value names its path")
    func badEventsValueNamesThePath() {
        let sink = RecordingSink()
        let context = PluginContext(
            name: "tally", language: .english, colorAllowed: false, stateDirectory: "/tmp",
            environment: [:], standardOutput: sink, standardError: sink)
        #expect {
            try Tally(
                configuration: PluginConfiguration(
                    path: "subscribers[2]",
                    values: [
                        JSONMember(key: "events", value: .array([.string("juiceMde")]))
                    ]),
                context: context)
        } throws: { error in
            (error as? ConfigurationError)?.path == "subscribers[2].events[0]"
        }
    }
}
