import JuiceMakerCore
import JuiceMakerPluginKit
import Locking

/// The person's answer to a yes/no question.
enum Answer: Sendable, Equatable {
    case yes, no, end, interrupted
}

/// What a screen's prompt read: a line its parser took, or the end of the input (the
/// end of a pipe or Ctrl-D; a stop signal).
enum Prompted<Line> {
    case line(Line), end, interrupted
}

/// What both screens share: the maker, the person's input, and how things are shown.
///
/// Prompts (`주문> `), questions, banners and menus appear only when the input is a
/// terminal, so a piped session prints results only (the article "The screens").
/// Refusals go to stderr as one `Error:` line. Events are shown once: by the CLI notifier when one is
/// configured, otherwise by the screen itself through the same renderer
/// (`PluginRegistry.eventRenderer`).
struct ScreenIO {
    let session: Session
    let maker: JuiceMaker
    let input: LineInput
    /// The kinds of event no notifier shows to the person, which the screen renders.
    private let unseen: Set<EventKind>
    private let renderer: any EventRenderer

    init(session: Session, maker: JuiceMaker, input: LineInput) {
        self.session = session
        self.maker = maker
        self.input = input
        unseen = Set(EventKind.allCases.filter { session.confirms($0) })
        let context = session.context
        renderer = context.registry.eventRenderer(
            EventRenderingStyle(
                language: context.language,
                color: context.settings.colorAllowed && context.console.standardOutput.isTerminal, asks: true))
    }

    var language: Language { session.context.language }
    var console: Console { session.context.console }
    /// Whether the person hears about events at all (not with `--quiet`).
    var showsEvents: Bool { !session.context.settings.quiet }
    /// Whether a person types at a terminal: only then does the screen show its
    /// banners, menus, prompts and questions. From a pipe it prints results only.
    var isInteractive: Bool { input.isTerminal }

    /// Prints one line (or block) on stdout.
    func show(_ text: LocalizedText) {
        console.print(text)
    }

    func show(_ text: String) {
        console.print(text)
    }

    /// Refuses a line: one `Error:` line on stderr; the screen's state is unchanged.
    func refuse(_ message: LocalizedText) {
        console.report(CLIError(.badValue, message))
    }

    /// Shows `marker` (on a terminal) and reads the next line; on a terminal ↑ recalls
    /// the lines typed earlier at this kind of prompt (`history`).
    func prompt(_ marker: LocalizedText, history: LineHistory) -> InputLine {
        let line = input.next(prompt: marker(language), history: history)
        // After Ctrl-D or Ctrl-C the cursor is still on the prompt's line.
        if input.isTerminal, line == .end || line == .interrupted { console.standardOutput.write("\n") }
        return line
    }

    /// Prompts as `prompt` does until a line that `parse` takes: a line it refuses is
    /// shown as one `Error:` line and the prompt comes back.
    func prompt<Line>(
        _ marker: LocalizedText, history: LineHistory, parse: (String) throws(ScreenInputError) -> Line
    ) -> Prompted<Line> {
        while true {
            switch prompt(marker, history: history) {
            case .end: return .end
            case .interrupted: return .interrupted
            case .line(let text):
                do throws(ScreenInputError) {
                    return .line(try parse(text))
                } catch {
                    refuse(error.message)
                }
            }
        }
    }

    /// Asks `question` (ending in `(y/N)`; shown on a terminal only) and reads the
    /// answer: `y`, `yes`, `예`, `네` mean yes; anything else, no.
    func ask(_ question: String) -> Answer {
        // On a terminal the question is the prompt; piped, results only.
        switch input.next(prompt: question + " ") {
        case .line(let text):
            return ["y", "yes", "예", "네", "ㅇ"].contains(text.trimmingWhitespace().lowercased()) ? .yes : .no
        case .end:
            if input.isTerminal { console.standardOutput.write("\n") }
            return .end
        case .interrupted:
            if input.isTerminal { console.standardOutput.write("\n") }
            return .interrupted
        }
    }

    /// Runs one change and shows the events it published that no notifier shows.
    func perform<T>(_ change: () throws(JuiceMakerError) -> T) throws(JuiceMakerError) -> T {
        guard !unseen.isEmpty else { return try change() }
        let recorder = EnvelopeRecorder()
        let kinds = unseen
        let subscription = try maker.subscribe("juice-screen", kinds: kinds) { envelope in recorder.record(envelope) }
        defer { subscription.cancel() }
        let result = try change()
        for envelope in recorder.envelopes {
            show(renderer.lines(for: envelope).joined(separator: "\n"))
        }
        return result
    }

    /// The stock now; a store failure ends the screen with exit 74.
    func stock() throws(CLIError) -> Stock {
        try ValueParsing.perform(session.context.invocation.path) { () throws(JuiceMakerError) in try maker.stock() }
    }
}

/// Collects the events one change published, in order.
final class EnvelopeRecorder: Sendable {
    private let recorded = Locked<[EventEnvelope]>([])

    func record(_ envelope: EventEnvelope) {
        recorded.withLock { $0.append(envelope) }
    }

    var envelopes: [EventEnvelope] { recorded.withLock { $0 } }
}
