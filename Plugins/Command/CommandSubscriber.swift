#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Spawning

/// Feeds events to any program, one CloudEvents JSON line each on its stdin, at
/// least once, in journal order: a subscriber written in any language.
///
/// Config (`type: "command"`):
/// - `command` (required): the program and its arguments, `["/usr/bin/python3", "hook.py"]`.
///   A name without `/` is looked up in `PATH`; a relative path resolves against
///   `workingDirectory`.
/// - `environment`: variables added to (or replacing) those `juice` runs with.
/// - `workingDirectory`: where the program runs (default: the store's directory).
/// - `events`: kinds to send; default all.
/// - `retrySchedule`: seconds to wait after each failed attempt (default `RetrySchedule.standard`).
/// - `timeoutSeconds`: how long the program may take to read one event (default 10,
///   above 0 and at most 3600). A program that has not read it by then fails
///   the attempt (retried on the schedule) and is restarted.
///
/// The program starts on the first event it must take and keeps running; each line
/// (`CloudEventFormat`, the same text as webhook bodies) counts as delivered once the
/// program has read it. If the program exits it is restarted for the next event with
/// a growing pause, and the exit is reported; what it writes to stderr is reported
/// line by line. At shutdown its stdin is closed (it reads end-of-file) and it is
/// given until the deadline to exit, then sent SIGTERM.
package final class CommandSubscriber: DurableDeliveryPlugin {
    /// The config `type` that selects the command subscriber.
    package static let type = "command"
    static let commandKey = ConfigurationKey(
        "command", .list(.string([.noNUL]), minimumCount: 1), required: true,
        expected: PluginMessage(
            english: "the program and its arguments, e.g. [\"/usr/bin/python3\", \"hook.py\"]",
            korean: "프로그램과 그 인자(예: [\"/usr/bin/python3\", \"hook.py\"])"), secrecy: .credentials,
        description: "The program and its arguments; it reads one CloudEvents JSON line per event on stdin. "
            + "juice config show masks credentials in them: a URL's user:password@ and query values, user:password, --password=VALUE.")
    static let environmentKey = ConfigurationKey(
        "environment", .dictionary(names: [.nonEmpty("variable name"), .noEquals, .noNUL], values: .string([.noNUL])),
        secrecy: .secretValues(harmless: ConfigurationSecrecy.harmlessEnvironment),
        description: "Variables added to (or replacing) those juice runs with. juice config show prints every value as *** "
            + "but those of \(ConfigurationSecrecy.harmlessEnvironment.joined(separator: ", ")).")
    static let workingDirectoryKey = ConfigurationKey(
        "workingDirectory", .string([.nonEmpty("path"), .noNUL]),
        expected: PluginMessage(
            english: "a directory path (leave workingDirectory out for the store's directory)",
            korean: "디렉터리 경로(저장소의 디렉터리를 쓰려면 workingDirectory를 빼세요)"), secrecy: .harmless,
        description: "Where the program runs. Default: the store's directory.")
    static let eventsKey = ConfigurationKey.events("Only these kinds of event are sent; default all.")
    static let timeoutKey = ConfigurationKey(
        "timeoutSeconds", .number(minimum: 0, exclusiveMinimum: true, maximum: 3_600, unit: "seconds"),
        default: .number(defaultTimeoutSeconds),
        description:
            "How long the program may take to read one event; a program that has not read it by then fails the attempt (retried on the schedule) and is restarted."
    )
    /// The keys the command subscriber reads.
    package static let configuration = [
        commandKey, environmentKey, workingDirectoryKey, eventsKey, ConfigurationKey.retrySchedule, timeoutKey,
    ]
    /// How long the program may take to read one event unless `timeoutSeconds` says otherwise.
    package static let defaultTimeoutSeconds = 10.0
    /// A durable plugin, fed from the fleet's stream by the host's runner too.
    package static let declaration = PluginDeclaration.destination(CommandSubscriber.self, type: type, configuration: configuration)

    /// The program and its arguments, the program's path resolved.
    package let command: [String]
    /// The configured `events` filter; `nil` means every kind.
    package let eventKinds: Set<EventKind>?
    /// When failed events are tried again.
    package let retrySchedule: RetrySchedule
    /// How long the program may take to read one event, in seconds.
    package let timeoutSeconds: Double

    private let context: PluginContext
    private let environment: [String: String]
    private let workingDirectory: String

    /// Builds the subscriber from its section. Starts nothing yet.
    package init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        let path = configuration.path
        guard let command = try configuration.strings(Self.commandKey), let program = command.first, !program.isEmpty else {
            throw ConfigurationError(path: "\(path).command[0]", reason: .empty(noun: "program", expected: Self.commandKey.expectation))
        }
        var environment = context.environment
        for (name, value) in try configuration.stringPairs(Self.environmentKey) ?? [] {
            environment[name] = value
        }
        let directory = try configuration.string(Self.workingDirectoryKey) ?? context.stateDirectory
        workingDirectory = directory
        guard let resolved = Self.resolve(program, in: directory, path: environment["PATH"]) else {
            let program = ConfigurationKey.quoted(program)
            let directory = ConfigurationKey.quoted(directory)
            throw ConfigurationError(
                path: "\(path).command[0]",
                plugin: PluginMessage(
                    english: "no executable program \(program) (looked in PATH and \(directory))",
                    korean: "실행할 수 있는 프로그램 \(program)이(가) 없습니다(PATH와 \(directory)에서 찾음)"))
        }
        self.command = [resolved] + command.dropFirst()
        self.environment = environment
        eventKinds = try configuration.eventKinds(Self.eventsKey)
        retrySchedule = try configuration.retrySchedule(.retrySchedule) ?? .standard
        timeoutSeconds = try configuration.number(Self.timeoutKey) ?? Self.defaultTimeoutSeconds
        self.context = context
    }

    /// The executable for `program`: a path with `/` as is (relative to `directory`),
    /// else the first match in `path`.
    static func resolve(_ program: String, in directory: String, path: String?) -> String? {
        ProgramLaunch.executable(program, in: directory, path: path)
    }

    /// The events it takes, one at a time, on its schedule.
    package var deliverySettings: DeliverySettings { DeliverySettings(kinds: eventKinds, schedule: retrySchedule) }

    /// The program, started on the first event the host offers it.
    package func makeDestination(for host: PluginHost) throws(PluginError) -> any DurableDestination {
        SupervisedProgram(
            name: context.name, arguments: command, environment: environment, workingDirectory: workingDirectory,
            timeout: .milliseconds(Int64((timeoutSeconds * 1000).rounded(.up))), report: host.reportError)
    }
}
