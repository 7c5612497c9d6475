import EventBus
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking

/// Shows events to the person at the terminal, in their language, on standard output.
///
/// Config (`type: "cli-notifier"`):
/// - `events`: optional list of kinds to show (`["juiceMade", "orderFailed"]`).
/// - `stockChanges`: `false` hides the per-fruit stock lines (default `true`), for a
///   person who only wants to hear about orders; same as leaving `stockChanged` out
///   of `events`.
///
/// Delivery is synchronous: each event's lines are written, as one write, before the
/// command that caused it returns, and in journal order. Colour is used only when
/// the context allows it and standard output is a terminal.
package final class CLINotifier: EventObserver {
    /// The config `type` that selects the notifier.
    package static let type = "cli-notifier"
    static let eventsKey = ConfigurationKey.events("Only these kinds of event are shown; default all.")
    static let stockChangesKey = ConfigurationKey(
        "stockChanges", .boolean, default: .bool(true), description: "false hides the per-fruit stock lines.")
    /// The keys the notifier reads.
    package static let configuration = [eventsKey, stockChangesKey]
    /// An observer that shows the person the kinds it is set to show (so a command
    /// does not confirm those again), and renders events for the commands that show
    /// them themselves.
    package static let declaration = PluginDeclaration.observer(
        CLINotifier.self, type: type, configuration: configuration,
        eventRenderer: { style in NotificationRenderer(language: style.language, color: style.color, asks: style.asks) },
        shownKinds: { section in (try? shownKinds(section)) ?? [] })

    /// The kinds this notifier shows.
    package let shownKinds: Set<EventKind>
    /// How events become lines (language and colour decided once, at init).
    package let renderer: NotificationRenderer

    private let context: PluginContext
    private let subscription = Locked<Subscription?>(nil)

    /// Builds the notifier from its config section.
    package init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        self.shownKinds = try Self.shownKinds(configuration)
        self.context = context
        self.renderer = NotificationRenderer(
            language: context.language,
            color: context.colorAllowed && context.standardOutput.isTerminal,
            asks: context.mayAsk)
    }

    /// The kinds a notifier with `configuration` shows: its `events`, less
    /// `stockChanged` with `stockChanges: false`.
    static func shownKinds(_ configuration: PluginConfiguration) throws(ConfigurationError) -> Set<EventKind> {
        var kinds = try configuration.eventKinds(Self.eventsKey) ?? Set(EventKind.allCases)
        if try configuration.bool(Self.stockChangesKey) == false {
            kinds.remove(.stockChanged)
        }
        return kinds
    }

    /// The lines a person reads for `envelope` (see `NotificationRenderer`).
    package static func render(_ envelope: EventEnvelope, language: Language, color: Bool) -> [String] {
        NotificationRenderer(language: language, color: color).lines(for: envelope)
    }

    /// Subscribes synchronously to the kinds it shows.
    package func attach(to host: PluginHost) throws(PluginError) {
        guard !shownKinds.isEmpty, subscription.withLock({ $0 == nil }) else { return }
        let renderer = renderer
        let output = context.standardOutput
        let token = try host.subscribe(context.name, delivery: .synchronous, kinds: shownKinds) { envelope in
            output.write(renderer.lines(for: envelope).joined(separator: "\n") + "\n")
        }
        subscription.withLock { $0 = token }
    }

    /// Stops listening. Nothing to flush: every line was written when its event came.
    package func shutdown(deadline: ContinuousClock.Instant) async {
        subscription.withLock { token in
            token?.cancel()
            token = nil
        }
    }
}
