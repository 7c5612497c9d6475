import FleetConfiguration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import FleetReaders
import NATSClient

/// `juice fleet watch [--machine M] [--type T] [--since DURATION|all] [--json]`.
///
/// A message that is not a machine's event (`FleetEvent`) is skipped with one escaped
/// line on stderr (stream sequence, subject, reason); the exit status is how it
/// stopped (130 on Ctrl-C, 143 on SIGTERM), skipped messages or not.
struct FleetWatchCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: LocalizedText(
            "Show every machine's events as they happen, each prefixed with its machine (Ctrl-C stops).",
            ko: "모든 기계의 이벤트를 일어나는 대로, 기계 이름을 앞에 붙여 보여 줍니다 (Ctrl-C로 멈춤)."))

    struct Options: CommandOptions {
        let nats: Option<String?>
        let machine: Option<String?>
        let kinds: Option<Set<EventKind>?>
        /// `.distantPast`: all.
        let since: Option<Date?>
        init(_ options: inout OptionList) {
            nats = options.nats()
            machine = options.value("machine", value: "name", help: LocalizedText("Only this machine's events.", ko: "이 기계의 이벤트만.")) {
                machine, _ throws(CLIError) in
                guard Fleet.isMachineName(machine) else { throw CLIError(.badValue, Catalog.Fleet.badMachine(machine)) }
                return machine
            }
            kinds = options.eventTypes()
            since = options.value(
                "since", value: "duration|all",
                help: LocalizedText(
                    "First replay the events of the last DURATION (30s, 10m, 2h, 1d) or all of them, then follow.",
                    ko: "먼저 지난 DURATION(30s, 10m, 2h, 1d)의 이벤트나 전부를 다시 보여 준 뒤 따라갑니다.")
            ) { text, _ throws(CLIError) in
                if text == "all" { return .distantPast }
                guard let seconds = FleetCommandSupport.seconds(text) else { throw CLIError(.badValue, Catalog.Fleet.badDuration(text)) }
                return Date(timeIntervalSinceNow: -seconds)
            }
        }
    }
    static let needs = CommandNeeds.plugins

    let nats: String?
    let machine: String?
    let kinds: Set<EventKind>?
    /// `nil`: only new events; `.distantPast`: all.
    let since: Date?

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        nats = try options.nats.value
        machine = try options.machine.value
        kinds = try options.kinds.value
        since = try options.since.value
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        let context = session.context
        let reader = try FleetCommandSupport.reader(context, nats: nats)
        let filters: [String] =
            if let kinds, kinds.count == 1, let kind = kinds.first {
                [Fleet.filter(prefix: reader.prefix, machine: machine, kind: kind)]
            } else {
                [Fleet.filter(prefix: reader.prefix, machine: machine, kind: nil)]
            }
        let start: NATSConnection.Start =
            switch since {
            case nil: .new
            case .some(let date) where date == .distantPast: .all
            case .some(let date): .since(date)
            }
        var subscription: NATSSubscription
        do {
            subscription = try reader.connection.reader(stream: reader.stream, filter: filters[0], start: start)
        } catch {
            throw FleetCommandSupport.failure(error)
        }
        let stderr = context.console.standardError
        let language = context.language
        // A deleted stream gives an ordered reader nothing more: it is looked at while nothing comes.
        let presence = StreamPresence(connection: reader.connection, summary: reader.summary) { line in
            stderr.write("juice: \(Catalog.Fleet.connection(line)(language))\n")
        }
        let output = context.console.standardOutput
        let json = context.settings.json
        let renderer = context.registry.eventRenderer(
            EventRenderingStyle(language: context.language, color: context.settings.colorAllowed && output.isTerminal, asks: false))
        let stop = session.stopSignals()
        let reportSkipped = FleetCommandSupport.reportSkipped(context)
        while !stop.isRequested {
            let message: NATSMessage?
            do {
                message = try subscription.next(timeout: 0.2)
            } catch {
                throw FleetCommandSupport.failure(error)
            }
            guard let message else {
                if case .newStream = presence.lookIfDue() {
                    subscription.stop()
                    do {
                        subscription = try reader.connection.reader(stream: reader.stream, filter: filters[0], start: .all)
                    } catch {
                        throw FleetCommandSupport.failure(error)
                    }
                }
                continue
            }
            let event: FleetEvent
            switch FleetEvent.read(message, prefix: reader.prefix, maxBytes: reader.maxMessageBytes) {
            case .success(let read): event = read
            case .failure(let skipped):
                reportSkipped(skipped)
                continue
            }
            let envelope = event.envelope
            guard kinds?.contains(envelope.event.kind) ?? true else { continue }
            // The stream is written by other machines: untrusted. A message is shown as it
            // came only when it is one line with nothing that steers a terminal; otherwise
            // as this build encodes the event it read.
            let text = message.text
            if json {
                output.write((TerminalText.escaped(text) == text ? text : CloudEventFormat.encode(envelope)) + "\n")
            } else {
                output.write(renderer.lines(for: envelope).map { "[\(event.machine)] \($0)" }.joined(separator: "\n") + "\n")
            }
        }
        subscription.stop()
        if output.isTerminal { output.write("\n") }
        return .success
    }
}
