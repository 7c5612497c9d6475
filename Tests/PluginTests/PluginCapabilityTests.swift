import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Locking
import CLINotifierPlugin
import LoggerPlugin
import Testing

/// What the logger and the notifier tell the host through their declarations, which
/// the CLI reads instead of testing for their types.
@Suite(.tags(.unit)) struct PluginCapabilityTests {
    @Test func theNotifiersRendererShowsWhatTheNotifierShows() async throws {
        for language in [Language.english, .korean] {
            let rig = Rig()
            let notifier = try CLINotifier(configuration: section([]), context: rig.context(language: language))
            try notifier.attach(to: rig.host)
            try rig.maker.make(.strawberry)  // fails: 16 needed, 10 in stock
            try rig.maker.make(.kiwi)
            let renderer = try #require(CLINotifier.declaration.eventRenderer?(EventRenderingStyle(language: language, color: false, asks: true)))
            #expect(try rig.journal().flatMap(renderer.lines(for:)) == rig.output.lines)
            #expect(CLINotifier.declaration.startWarnings(section([])).isEmpty)
            guard case .none = CLINotifier.declaration.fleetRole(of: notifier) else {
                Issue.record("the notifier is fed from the fleet")
                return
            }
            // Where nobody can answer, the failure is stated, not asked about.
            let stating = try #require(CLINotifier.declaration.eventRenderer?(EventRenderingStyle(language: language, color: false, asks: false)))
            let failure = try #require(try rig.journal().first { $0.event.kind == .orderFailed })
            #expect(stating.lines(for: failure).first != renderer.lines(for: failure).first)
            await notifier.shutdown(deadline: generousDeadline())
        }
    }

    @Test func theLoggerIsFedFromTheFleetThroughItsLog() async throws {
        let directory = try TemporaryDirectory()
        let rig = Rig()
        let logger = try EventLogger(
            configuration: section([("path", .string("juice.log")), ("level", .string("notice"))]),
            context: rig.context(name: "logger", stateDirectory: directory.path))
        guard case .destination(let destination, let kinds) = EventLogger.declaration.fleetRole(of: logger) else {
            Issue.record("the logger is not fed from the fleet through a destination")
            return
        }
        #expect(kinds == logger.loggedKinds)
        #expect(kinds != Set(EventKind.allCases))
        try rig.maker.make(.kiwi)
        try rig.maker.make(.strawberry)  // fails: a warning, above notice
        let events = try rig.journal()
        // Not attached: the log is not open, and the event is not taken.
        #expect(Self.accepts(destination, events[0]) == false)
        try logger.attach(to: rig.host)
        let logged = splitLines(try String(contentsOfFile: directory.file("juice.log"), encoding: .utf8)).count
        for envelope in events { #expect(Self.accepts(destination, envelope) == true) }
        let lines = splitLines(try String(contentsOfFile: directory.file("juice.log"), encoding: .utf8))
        // Each event of a logged kind is written once more, in order, when handed over.
        #expect(lines.count - logged == events.filter { kinds?.contains($0.event.kind) ?? true }.count)
        await logger.shutdown(deadline: generousDeadline())
    }

    /// Whether `destination` accepts `envelope` offered alone (the logger answers at
    /// once); `nil` when it has not answered.
    private static func accepts(_ destination: any DurableDestination, _ envelope: EventEnvelope) -> Bool? {
        let answer = Locked<Bool?>(nil)
        destination.send(
            DeliveryOffer([CommittedEvent(envelope, text: nil)]) { _, failure in
                answer.withLock { $0 = failure == nil }
                return true
            })
        return answer.withLock { $0 }
    }
}
