import FleetConfiguration
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import FleetReaders
import NATSClient

/// `juice fleet`: every machine's events, read from the fleet's JetStream stream
/// (`FleetCommandSupport.reader`). A build without libnats declares the same commands; each says how
/// to get NATS and exits 69.
enum FleetGroup: CommandDeclaration {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: LocalizedText(
            "See the fleet: every machine's events, stock and figures, from NATS JetStream.",
            ko: "플릿을 봅니다: 모든 기계의 이벤트, 재고, 수치를 NATS JetStream에서 읽습니다."),
        subcommands: [FleetWatchCommand.self, FleetStockCommand.self, FleetMetricsCommand.self, FleetDeliverCommand.self])
}

extension OptionList {
    /// `--nats <url>`, every fleet command's.
    mutating func nats() -> Option<String?> {
        text(
            "nats", value: "url",
            help: LocalizedText(
                "The NATS server (nats://host:port, comma-separated for a cluster); default: the config's fleet.url.",
                ko: "NATS 서버 (nats://host:port, 클러스터는 쉼표로 구분). 기본값: 설정의 fleet.url."))
    }
}

/// A fleet command whose only option is `--nats` (`fleet stock`, `fleet metrics`): it
/// reads the config and builds the plugins, never opens the store, connects
/// (`FleetCommandSupport.reader`), reads the stream and prints what it read. A NATS
/// failure while reading is `FleetCommandSupport.failure`; a build without libnats
/// exits 69.
protocol FleetReaderCommand: JuiceCommand where Options == FleetReaderOptions {
    init(nats: String?)
    var nats: String? { get }
    /// Reads the stream through `reader` and prints what the command shows.
    func show(_ reader: FleetCommandSupport.Reader, context: CommandContext) throws(NATSError)
}

extension FleetReaderCommand {
    static var needs: CommandNeeds { .plugins }

    init(_ invocation: Invocation) throws(CLIError) {
        self.init(nats: try Options(invocation).nats.value)
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        let reader = try FleetCommandSupport.reader(session.context, nats: nats)
        do {
            try show(reader, context: session.context)
        } catch {
            throw FleetCommandSupport.failure(error)
        }
        return .success
    }
}

/// A `FleetReaderCommand`'s one option.
struct FleetReaderOptions: CommandOptions {
    let nats: Option<String?>
    init(_ options: inout OptionList) {
        nats = options.nats()
    }
}

enum FleetCommandSupport {
    /// `30s`, `10m`, `2h`, `1d`, or plain seconds.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let unit = text.last, let factor = units[unit], let number = Double(text.dropLast()), number >= 0, number.isFinite {
            return number * factor
        }
        if let number = Double(text), number >= 0, number.isFinite { return number }
        return nil
    }

    /// `fleet.credentials` made absolute (a relative path is relative to the store's
    /// directory, as every path a subscriber names), checked readable; `nil` when not set.
    /// A bad value is a config error (78). `juice config check` checks it too.
    static func credentials(_ context: CommandContext) throws(CLIError) -> String? {
        do throws(ConfigurationError) {
            let section = context.config.fleet ?? PluginConfiguration(path: "fleet", values: [])
            return try Fleet.credentialsFile(of: section, relativeTo: context.location.stateDirectory)
        } catch {
            throw configError(error, context: context)
        }
    }

    /// `fleet.tlsCA`, `fleet.tlsCertificate` and `fleet.tlsKey` made absolute (relative to
    /// the store's directory), checked readable, the certificate with its key; `nil` when
    /// none is set. A bad value is a config error (78). `juice config check` checks them too.
    static func tlsFiles(_ context: CommandContext) throws(CLIError) -> TLSFiles? {
        let section = context.config.fleet ?? PluginConfiguration(path: "fleet", values: [])
        do throws(ConfigurationError) {
            return try Fleet.tlsFiles(of: section, relativeTo: context.location.stateDirectory)
        } catch {
            throw configError(error, context: context)
        }
    }

    /// The `fleet` section's subject prefix and stream, checked as the `nats` subscriber
    /// checks its own (`juice config check` says what `juice fleet` would refuse).
    static func subjectPrefixAndStream(_ context: CommandContext) throws(CLIError) -> (prefix: String, stream: String) {
        let section = context.config.fleet ?? PluginConfiguration(path: "fleet", values: [])
        do throws(ConfigurationError) {
            return (try Fleet.subjectPrefix(of: section), try Fleet.stream(of: section))
        } catch {
            throw configError(error, context: context)
        }
    }

    /// The subscribers `juice fleet deliver` feeds: those with a fleet role (durable
    /// ones but the NATS publisher, and loggers).
    static func fedPlugins(_ session: Session) -> [BuiltPlugin] {
        session.builtPlugins.filter { built in
            if case .none = built.fleetRole { false } else { true }
        }
    }

    /// Refuses a fed subscriber whose window (`maxInFlight`) is wider than what its
    /// consumer may have out (`fleet.maxAckPending`): the stream would never let it fill.
    /// `juice fleet deliver` and `juice config check` (where there is a `fleet` section) alike.
    static func checkWindows(_ plugins: [BuiltPlugin], context: CommandContext) throws(CLIError) {
        let section = context.config.fleet ?? PluginConfiguration(path: "fleet", values: [])
        let maxAckPending: Int
        do throws(ConfigurationError) {
            maxAckPending = Int(try section.number(Fleet.maxAckPendingKey) ?? Double(Fleet.defaultMaxAckPending))
        } catch {
            throw configError(error, context: context)
        }
        for built in plugins {
            let window = built.durable?.window ?? 1
            if window > maxAckPending {
                throw CLIError(.config, Catalog.Fleet.windowAboveMaxAckPending(built.entry.name, window: window, maxAckPending: maxAckPending))
            }
        }
    }

    /// A config error located in the config file.
    private static func configError(_ error: ConfigurationError, context: CommandContext) -> CLIError {
        var located = context.config.substituted.apply(to: error)
        if !located.path.isEmpty, located.path != "--nats" { located.file = context.config.source.file }
        return CLIError(.config, Catalog.ConfigErrors.located(located))
    }

    /// A connection to the fleet's server with the stream's name and subject prefix.
    struct Reader {
        let connection: NATSConnection
        let stream: String
        let prefix: String
        /// The stream, checked: it exists and takes `<prefix>.>`.
        let summary: StreamSummary
        /// How `juice fleet deliver`'s consumers are set up (`fleet.ackWait`, …).
        let consumerSettings: ConsumerSettings
        /// The largest message read (`fleet.maxMessageBytes`).
        var maxMessageBytes: Int { consumerSettings.maxMessageBytes }

        /// Hands `body` every message of `filter` from `start` (the stream's order), until
        /// the stream has no more; nothing when the stream held nothing when checked.
        func each(_ filter: String, from start: NATSConnection.Start, _ body: (NATSMessage) -> Void) throws(NATSError) {
            guard summary.messages > 0 else { return }
            let subscription = try connection.reader(stream: stream, filter: filter, start: start)
            defer { subscription.stop() }
            while let message = try subscription.next(timeout: 1) {
                body(message)
                if message.metadata?.pending == 0 { break }
            }
        }
    }

    /// Connects as `--nats` or the config's `fleet` section says and checks the stream:
    /// a missing URL or a bad value exits 78, no answer 69, no stream yet 69, a stream
    /// with other subjects 78.
    static func reader(_ context: CommandContext, nats: String?) throws(CLIError) -> Reader {
        let section = context.config.fleet ?? PluginConfiguration(path: "fleet", values: [])
        var options: NATSOptions
        let prefix: String
        let stream: String
        let settings: ConsumerSettings
        let credentials = try credentials(context)
        let tls = try tlsFiles(context)
        do throws(ConfigurationError) {
            let servers: [String]
            if let nats {
                switch Fleet.servers(nats) {
                case .success(let list): servers = list
                case .failure(let bad): throw Fleet.badURL(bad, at: "--nats")
                }
            } else if let configured = try Fleet.servers(of: section, key: Fleet.readerURLKey) {
                servers = configured
            } else {
                throw ConfigurationError(path: "", plugin: PluginMessage(english: Catalog.Fleet.noURL.english, korean: Catalog.Fleet.noURL.korean))
            }
            prefix = try Fleet.subjectPrefix(of: section)
            stream = try Fleet.stream(of: section)
            settings = ConsumerSettings(
                prefix: prefix, ackWait: try section.number(Fleet.ackWaitKey) ?? Fleet.defaultAckWaitSeconds,
                maxAckPending: Int(try section.number(Fleet.maxAckPendingKey) ?? Double(Fleet.defaultMaxAckPending)),
                start: try section.string(Fleet.deliverPolicyKey).flatMap(ConsumerSettings.Start.init(rawValue:)) ?? .all,
                maxMessageBytes: Int(try section.number(Fleet.maxMessageBytesKey) ?? Double(Fleet.defaultMaxMessageBytes)))
            options = NATSOptions(
                servers: servers, token: try section.string(Fleet.tokenKey),
                credentialsFile: credentials, tls: tls,
                timeout: try section.number(Fleet.timeoutKey) ?? Fleet.defaultTimeoutSeconds, reconnects: true,
                name: "juice fleet \(context.invocation.command.name)")
            let stderr = context.console.standardError
            let language = context.language
            options.connectionReport = { line in stderr.write("juice: \(Catalog.Fleet.connection(line)(language))\n") }
        } catch {
            throw configError(error, context: context)
        }
        do {
            let connection = try NATSConnection(options)
            let summary = try connection.requireStream(stream, subjects: "\(prefix).>")
            return Reader(connection: connection, stream: stream, prefix: prefix, summary: summary, consumerSettings: settings)
        } catch {
            throw failure(error)
        }
    }

    /// What a reader does with a message it skipped: one escaped line on stderr.
    static func reportSkipped(_ context: CommandContext) -> (FleetEvent.Skipped) -> Void {
        let stderr = context.console.standardError
        let language = context.language
        return { skipped in stderr.write("juice: \(Catalog.Fleet.skipped(skipped.line)(language))\n") }
    }

    /// A NATS failure as the command's error: refused credentials, an unusable stream or
    /// a `tls://` server without TLS are config (78); no stream yet, and the rest,
    /// unavailable (69).
    static func failure(_ error: NATSError) -> CLIError {
        let code: ExitCode = [.authorization, .streamMismatch, .tlsRequired, .configuration].contains(error.kind) ? .config : .unavailable
        return CLIError(code, LocalizedText(error.message, ko: error.message))
    }
}
