import CLINotifierPlugin
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
import LoggerPlugin
#if canImport(NATSPlugin)
import NATSPlugin
#endif

/// `juice fleet`: every machine's events, read from the fleet's JetStream stream
/// (README, Fleet). A build without libnats declares the same commands; each says how
/// to get NATS and exits 69.
enum FleetGroup: CommandDeclaration {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: LocalizedText(
            "See the fleet: every machine's events and stock, from NATS JetStream.",
            ko: "플릿을 봅니다: 모든 기계의 이벤트와 재고를 NATS JetStream에서 읽습니다."),
        subcommands: [FleetWatchCommand.self, FleetStockCommand.self, FleetDeliverCommand.self])

    /// `--nats URL`, every fleet command's.
    static let natsOption = OptionSpec(
        "nats", value: "url",
        help: LocalizedText(
            "The NATS server (nats://host:port, comma-separated for a cluster); default: the config's fleet.url.",
            ko: "NATS 서버 (nats://host:port, 클러스터는 쉼표로 구분). 기본값: 설정의 fleet.url."))
}

/// `juice fleet watch [--machine M] [--type T] [--since DURATION|all] [--json]`.
struct FleetWatchCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: LocalizedText(
            "Show every machine's events as they happen, each prefixed with its machine (Ctrl-C stops).",
            ko: "모든 기계의 이벤트를 일어나는 대로, 기계 이름을 앞에 붙여 보여 줍니다 (Ctrl-C로 멈춤)."),
        options: [
            FleetGroup.natsOption,
            OptionSpec("machine", value: "name", help: LocalizedText("Only this machine's events.", ko: "이 기계의 이벤트만.")),
            EventsCommand.typeOption,
            OptionSpec(
                "since", value: "duration|all",
                help: LocalizedText(
                    "First replay the events of the last DURATION (30s, 10m, 2h, 1d) or all of them, then follow.",
                    ko: "먼저 지난 DURATION(30s, 10m, 2h, 1d)의 이벤트나 전부를 다시 보여 준 뒤 따라갑니다.")),
        ])
    static let needs = CommandNeeds.plugins

    let nats: String?
    let machine: String?
    let kinds: Set<EventKind>?
    /// `nil`: only new events; `.distantPast`: all.
    let since: Date?

    init(_ invocation: Invocation) throws(CLIError) {
        nats = invocation.value("nats")
        machine = invocation.value("machine")
        if let machine, !Fleet.isMachineName(machine) {
            throw CLIError(.badValue, Catalog.Fleet.badMachine(machine), usage: invocation.path)
        }
        kinds = try ValueParsing.eventKinds(invocation)
        if let text = invocation.value("since") {
            if text == "all" {
                since = .distantPast
            } else if let seconds = FleetCommandSupport.seconds(text) {
                since = Date(timeIntervalSinceNow: -seconds)
            } else {
                throw CLIError(.badValue, Catalog.Fleet.badDuration(text), usage: invocation.path)
            }
        } else {
            since = nil
        }
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        #if canImport(NATSPlugin)
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
        let subscription: NATSSubscription
        do {
            subscription = try reader.connection.reader(stream: reader.stream, filter: filters[0], start: start)
        } catch {
            throw FleetCommandSupport.failure(error)
        }
        let output = context.console.standardOutput
        let json = context.settings.json
        let renderer = NotificationRenderer(language: context.language, color: context.settings.colorAllowed && output.isTerminal)
        let stop = session.stopSignals()
        let prefixTokens = reader.prefix.split(separator: ".").count
        while !stop.isRequested {
            let message: NATSMessage?
            do {
                message = try subscription.next(timeout: 0.2)
            } catch {
                throw FleetCommandSupport.failure(error)
            }
            guard let message else { continue }
            let text = message.text
            guard let envelope = try? CloudEventFormat.decode(text) else { continue }
            guard kinds?.contains(envelope.event.kind) ?? true else { continue }
            if json {
                output.write(text + "\n")
            } else {
                let tokens = message.subject.split(separator: ".")
                let name = tokens.count > prefixTokens ? String(tokens[prefixTokens]) : "?"
                output.write(renderer.lines(for: envelope).map { "[\(name)] \($0)" }.joined(separator: "\n") + "\n")
            }
        }
        subscription.stop()
        if output.isTerminal { output.write("\n") }
        return .success
        #else
        throw FleetCommandSupport.unavailableBuild
        #endif
    }
}

/// `juice fleet stock [--json]`: machines × fruits, each machine's latest stock as the
/// stream holds it (the last `stock.changed` per machine and fruit), with its age.
struct FleetStockCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "stock",
        abstract: LocalizedText(
            "Show each machine's latest stock, read from the stream, and how old it is.",
            ko: "각 기계의 최신 재고와 그 나이를 스트림에서 읽어 보여 줍니다."),
        options: [FleetGroup.natsOption])
    static let needs = CommandNeeds.plugins

    let nats: String?

    init(_ invocation: Invocation) throws(CLIError) {
        nats = invocation.value("nats")
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        #if canImport(NATSPlugin)
        let context = session.context
        let reader = try FleetCommandSupport.reader(context, nats: nats)
        let rows: [FleetStockRow]
        do {
            rows = try FleetStockRow.read(reader)
        } catch {
            throw FleetCommandSupport.failure(error)
        }
        let now = Date()
        if context.settings.json {
            context.console.print(
                JSONWriter.compact(
                    .array(
                        rows.map { row in
                            .object([
                                ("machine", .string(row.machine)),
                                ("stock", .object(Fruit.allCases.compactMap { fruit in row.stock[fruit].map { (fruit.id, .integer($0)) } })),
                                ("updated", .string(RFC3339.format(row.updated))),
                                ("ageSeconds", .number(max(0, (now.timeIntervalSince(row.updated) * 1000).rounded() / 1000))),
                            ])
                        })))
            return .success
        }
        let language = context.language
        var table = [
            [Catalog.Fleet.machineHeading(language)] + Fruit.allCases.map { "\($0.emoji) \(Catalog.Results.name($0)(language))" }
                + [Catalog.Fleet.updatedHeading(language)]
        ]
        table += rows.map { row in
            [row.machine] + Fruit.allCases.map { row.stock[$0].map(String.init) ?? "-" }
                + [Catalog.Fleet.age(now.timeIntervalSince(row.updated))(language)]
        }
        if rows.isEmpty {
            context.console.print(Catalog.Fleet.noMachines)
        } else {
            context.console.standardOutput.write(TableLayout.render(table))
        }
        return .success
        #else
        throw FleetCommandSupport.unavailableBuild
        #endif
    }
}

/// `juice fleet deliver [--follow]`: the configured webhook, command and logger
/// subscribers fed from the fleet's stream instead of the local journal, each through
/// a JetStream durable consumer named after it (explicit ack after a successful
/// delivery), with the same plugins, signing and retries. A logger runs as a durable
/// subscriber here: its line is written before the ack. Retry state and dead letters
/// are kept in the local store under `<name>@fleet` (`Fleet.bookkeepingName`). Exits
/// as `juice deliver`.
struct FleetDeliverCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: LocalizedText(
            "Deliver every machine's events to the configured webhook, command and logger subscribers, from the stream.",
            ko: "모든 기계의 이벤트를 스트림에서 읽어 설정된 webhook, command, logger 구독자에게 전달합니다."),
        options: [
            FleetGroup.natsOption,
            OptionSpec(
                "follow",
                help: LocalizedText(
                    "Keep running and deliver events as they reach the stream (Ctrl-C stops).",
                    ko: "계속 실행하며 스트림에 오는 이벤트를 전달합니다 (Ctrl-C로 멈춤).")),
        ])
    /// The store: retry state and dead letters are kept in its delivery tables.
    static let needs = CommandNeeds.store
    /// Messages held (fetched, not yet acknowledged) per subscriber.
    static let batch = 64
    /// Seconds the server waits for an ack before sending a message again; held
    /// messages are kept "in progress", so only a dead process lets it run out.
    static let ackWait = 5.0

    let nats: String?
    let follow: Bool

    init(_ invocation: Invocation) throws(CLIError) {
        nats = invocation.value("nats")
        follow = invocation.has("follow")
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        #if canImport(NATSPlugin)
        let context = session.context
        let durable = session.builtPlugins.filter { $0.plugin is any DurableDeliveryPlugin && !($0.plugin is NATSPublisher) }
        let loggers = session.builtPlugins.filter { $0.plugin is EventLogger }
        guard !durable.isEmpty || !loggers.isEmpty else {
            if !context.settings.quiet { context.console.print(Catalog.Delivery.noDurableSubscribers) }
            return .success
        }
        let reader = try FleetCommandSupport.reader(context, nats: nats)
        let local = try session.journal()
        // The plugins hear no bus: their runners are woken by the journals.
        let maker = JuiceMaker(store: InMemoryStore())
        let stderr = context.console.standardError
        let language = context.language
        var journals: [ConsumerJournal] = []
        defer { journals.forEach { $0.stop() } }
        var loggerRunners: [(name: String, delivery: DurableDelivery)] = []
        for built in durable + loggers {
            let name = built.entry.name
            let report: @Sendable (PluginMessage) -> Void = { detail in
                stderr.write("juice: \(Catalog.Errors.subscriberReport(name, detail)(language))\n")
            }
            let journal: ConsumerJournal
            do {
                let subscription = try reader.connection.durableConsumer(
                    stream: reader.stream, filter: "\(reader.prefix).>", durable: Fleet.consumerName(name),
                    ackWait: Self.ackWait, maxAckPending: Self.batch)
                journal = ConsumerJournal(subscription: subscription, batch: Self.batch, bookkeeping: local) {
                    report(PluginMessage(untranslated: $0))
                }
            } catch {
                throw FleetCommandSupport.failure(error)
            }
            journals.append(journal)
            // A subscriber a permanent refusal disabled is enabled again by a new run, as
            // before its state was kept (`juice subscribers retry` acts on the local journal).
            let kept = Fleet.bookkeepingName(name)
            if let retry = try? local.retryState(for: kept), retry.disabled { try? local.setRetryState(nil, for: kept) }
            do throws(PluginError) {
                try built.plugin.attach(
                    to: PluginHost(
                        maker: maker, journal: journal, reportError: report, describeStoreError: Catalog.Errors.storeForPlugin))
            } catch {
                switch error {
                case let .store(failure): throw CLIError(.storeIO, Catalog.Errors.store(failure))
                case let .failed(message): throw CLIError(.config, Catalog.Errors.subscriberReport(name, message))
                }
            }
            if let logger = built.plugin as? EventLogger {
                loggerRunners.append(
                    (
                        name,
                        DurableDelivery(
                            name: name, journal: journal, kinds: logger.loggedKinds, destination: LoggerDestination(logger: logger),
                            reportError: report, describeStoreError: Catalog.Errors.storeForPlugin)
                    ))
            }
        }
        let runners = DeliverCommand.runners(session) + loggerRunners
        // The plugins shut their own runners down when the session closes; these are ours,
        // stopped before the loggers close their logs.
        func stopLoggerRunners() async {
            let deadline = ContinuousClock.now + .milliseconds(Int(context.config.flushDeadlineSeconds * 1000))
            for runner in loggerRunners { await runner.delivery.shutdown(deadline: deadline) }
        }
        if follow {
            let stop = session.stopSignals()
            for journal in journals { journal.startFeeding() }
            for runner in runners { runner.delivery.follow() }
            if !context.settings.quiet {
                stderr.write(Catalog.Delivery.following(runners.map(\.name))(language) + "\n")
            }
            await stop.requested()
            await stopLoggerRunners()
            return .success
        }
        // A batch at a time: fetch, deliver (acknowledging), until the stream has no more
        // or a subscriber cannot go on now.
        while true {
            var fetched = 0
            for journal in journals {
                do {
                    fetched += try journal.fetchAvailable(timeout: 0.5)
                } catch {
                    throw FleetCommandSupport.failure(error)
                }
            }
            let outcomes = await DeliverCommand.deliverAll(
                runners, stop: session.stopSignals(), flushDeadline: context.config.flushDeadlineSeconds
            ) { delivery in
                await delivery.deliverPending(waitingAtMost: DeliverCommand.patience)
            }
            let caughtUp = outcomes.allSatisfy { if case .caughtUp = $0.phase { true } else { false } }
            if fetched == 0 || !caughtUp {
                await stopLoggerRunners()
                return DeliverCommand.report(outcomes, context: context)
            }
        }
        #else
        throw FleetCommandSupport.unavailableBuild
        #endif
    }
}

#if canImport(NATSPlugin)
/// A logger as a durable destination (`juice fleet deliver`): an event is delivered
/// once its line is handed to the log's `write(2)`.
struct LoggerDestination: DurableDestination {
    let logger: EventLogger

    func deliver(_ envelope: EventEnvelope) async throws(DeliveryFailure) {
        guard logger.write(envelope) else {
            throw DeliveryFailure(PluginMessage(english: "the log is not open", korean: "로그가 열려 있지 않습니다"))
        }
    }
}
#endif

enum FleetCommandSupport {
    /// What every fleet command throws in a build without libnats.
    static var unavailableBuild: CLIError { CLIError(.unavailable, Catalog.Fleet.notBuilt) }

    /// `30s`, `10m`, `2h`, `1d`, or plain seconds.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let unit = text.last, let factor = units[unit], let number = Double(text.dropLast()), number >= 0, number.isFinite {
            return number * factor
        }
        if let number = Double(text), number >= 0, number.isFinite { return number }
        return nil
    }

    #if canImport(NATSPlugin)
    /// A connection to the fleet's server with the stream's name and subject prefix.
    struct Reader {
        let connection: NATSConnection
        let stream: String
        let prefix: String
    }

    /// Connects as `--nats` or the config's `fleet` section says: a missing URL or a bad
    /// value exits 78, no answer 69.
    static func reader(_ context: CommandContext, nats: String?) throws(CLIError) -> Reader {
        let section = context.config.fleet ?? PluginConfiguration(path: "fleet", values: [])
        let options: NATSOptions
        let prefix: String
        let stream: String
        do throws(ConfigurationError) {
            let configured = try section.string(Fleet.readerURLKey)
            guard let url = nats ?? configured else {
                throw ConfigurationError(path: "", plugin: PluginMessage(english: Catalog.Fleet.noURL.english, korean: Catalog.Fleet.noURL.korean))
            }
            let servers: [String]
            switch Fleet.servers(url) {
            case .success(let list): servers = list
            case .failure(let bad): throw Fleet.badURL(bad, at: nats == nil ? "fleet.url" : "--nats")
            }
            prefix = try section.string(Fleet.subjectPrefixKey) ?? Fleet.defaultSubjectPrefix
            stream = try section.string(Fleet.streamKey) ?? Fleet.defaultStream
            // A relative credentials file is relative to the config file's directory.
            var credentials = try section.string(Fleet.credentialsKey)
            if let file = credentials {
                let base =
                    context.config.source.file.map { PathText.parent(of: $0) }
                    ?? FileManager.default.currentDirectoryPath
                let absolute = file.hasPrefix("/") ? file : PathText.join(base, file)
                guard FileManager.default.isReadableFile(atPath: absolute) else {
                    throw ConfigurationError(
                        path: "fleet.credentials",
                        plugin: PluginMessage(
                            english: "cannot read the credentials file \(absolute) (a NATS .creds file: nsc generate creds)",
                            korean: "자격 증명 파일 \(absolute)을(를) 읽을 수 없습니다(NATS .creds 파일: nsc generate creds)"))
                }
                credentials = absolute
            }
            options = NATSOptions(
                servers: servers, token: try section.string(Fleet.tokenKey),
                credentialsFile: credentials,
                timeout: try section.number(Fleet.timeoutKey) ?? Fleet.defaultTimeoutSeconds, reconnects: true,
                name: "juice fleet \(context.invocation.command.name)")
        } catch {
            var located = context.config.substituted.apply(to: error)
            if !located.path.isEmpty, located.path != "--nats" { located.file = context.config.source.file }
            throw CLIError(.config, Catalog.ConfigErrors.located(located))
        }
        do {
            return Reader(connection: try NATSConnection(options), stream: stream, prefix: prefix)
        } catch {
            throw failure(error)
        }
    }

    /// A NATS failure as the command's error: refused credentials or an unusable stream
    /// are config (78), the rest unavailable (69).
    static func failure(_ error: NATSError) -> CLIError {
        let code: ExitCode = error.kind == .authorization || error.kind == .streamMismatch ? .config : .unavailable
        return CLIError(code, LocalizedText(error.message, ko: error.message))
    }
    #endif
}

#if canImport(NATSPlugin)
/// One machine's latest stock as the stream holds it.
struct FleetStockRow {
    let machine: String
    var stock: [Fruit: Int]
    var updated: Date

    /// The last `stock.changed` of every machine and fruit.
    static func read(_ reader: FleetCommandSupport.Reader) throws(NATSError) -> [FleetStockRow] {
        let filter = "\(reader.prefix).*.\(Fleet.kindTokens(.stockChanged)).*"
        let subscription = try reader.connection.reader(stream: reader.stream, filter: filter, start: .lastPerSubject)
        defer { subscription.stop() }
        let prefixTokens = reader.prefix.split(separator: ".").count
        var rows: [String: FleetStockRow] = [:]
        while let message = try subscription.next(timeout: 1) {
            let tokens = message.subject.split(separator: ".")
            if tokens.count > prefixTokens, let envelope = try? CloudEventFormat.decode(message.text),
                case let .stockChanged(fruit, _, to, _) = envelope.event
            {
                let machine = String(tokens[prefixTokens])
                var row = rows[machine] ?? FleetStockRow(machine: machine, stock: [:], updated: envelope.time)
                row.stock[fruit] = to
                row.updated = max(row.updated, envelope.time)
                rows[machine] = row
            }
            if message.metadata?.pending == 0 { break }
        }
        return rows.values.sorted { $0.machine < $1.machine }
    }
}
#endif
