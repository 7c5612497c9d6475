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
import JuiceJSON
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import SQLiteStore

/// `juice subscribers`: each configured subscriber, its type, whether it is enabled,
/// and, for durable ones (webhook, command), its cursor, how many events it is
/// behind, how many requests it keeps in flight at most (`maxInFlight`, or 1 when
/// `ordered`), when its failing event is tried next, and how many it gave up on. A
/// subscriber `juice fleet deliver` feeds has a second line, `<name>@fleet`
/// (`FleetSubscriberStatus`): its consumer's ack floor and lag, attempts, dead letters.
struct SubscribersCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribers",
        abstract: LocalizedText(
            "List the configured subscribers, their state and cursor lag.", ko: "설정된 구독자와 상태, 커서 지연을 보여 줍니다."),
        subcommands: [SubscribersRetryCommand.self, SubscribersAcknowledgeCommand.self, SubscribersRewindCommand.self])

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let language = context.language
        let journal = try session.journal()
        let subscribers = context.config.subscribers
        var statuses: [String: DurableSubscriberStatus] = [:]
        do {
            for entry in subscribers where context.registry.plugin(named: entry.type)?.isDurable == true {
                statuses[entry.name] = try DurableSubscriberStatus.read(entry.name, from: journal)
            }
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        let lost: [LostEvents]
        var rewinds: [String: CursorRewind] = [:]
        var history: CompactionState?
        do {
            lost = try journal.lostEvents(for: nil)
            if let store = journal as? SQLiteStore {
                rewinds = try store.rewinds()
                history = try store.compactionState()
            }
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        // Events compaction deleted are not owed to anyone: lag counts from where history starts.
        if let through = history?.through, through > 0 {
            for (name, status) in statuses where status.cursor < through {
                statuses[name] = DurableSubscriberStatus(
                    name: name, cursor: status.cursor, lag: max(0, status.lag - (through - status.cursor)), retry: status.retry,
                    deadLetters: status.deadLetters)
            }
        }
        let fleet: [FleetSubscriberStatus]
        do {
            fleet = try FleetSubscriberStatus.read(context, journal: journal) { warning in
                context.console.standardError.write("juice: \(Catalog.Delivery.fleetUnknown(warning)(language))\n")
            }
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        if context.settings.json {
            let items = subscribers.map { entry -> JSONValue in
                let status = statuses[entry.name]
                var members: [(key: String, value: JSONValue)] = [
                    ("name", .string(entry.name)),
                    ("type", .string(entry.type)),
                    ("enabled", .bool(entry.enabled)),
                    ("cursor", status.map { .number(Double($0.cursor)) } ?? .null),
                    ("lag", status.map { .number(Double($0.lag)) } ?? .null),
                    ("maxInFlight", status == nil ? .null : .integer(Self.window(of: entry, context).window)),
                    ("deadLetters", status.map { .integer($0.deadLetters) } ?? .integer(0)),
                ]
                if let retry = status?.retry { members += Self.retryMembers(retry) }
                if status != nil, let history { members.append(("historyStart", .number(Double(history.historyStart)))) }
                if status != nil, let rewind = rewinds[entry.name] {
                    members.append(
                        (
                            "rewound",
                            .object([
                                ("from", .number(Double(rewind.from))), ("to", .number(Double(rewind.to))),
                                ("at", .string(RFC3339.format(Date(timeIntervalSince1970: rewind.at)))),
                                ("replaying", .bool((status?.cursor ?? 0) < rewind.from)),
                            ])
                        ))
                }
                let losses = lost.filter { $0.subscriber == entry.name }
                if !losses.isEmpty { members.append(("lostEvents", Self.lostMembers(losses))) }
                return .object(members)
            }
            let fleetItems = fleet.map { status -> JSONValue in
                var members: [(key: String, value: JSONValue)] = [
                    ("name", .string(status.name)),
                    ("type", .string(status.entry.type)),
                    ("enabled", .bool(status.entry.enabled)),
                    ("fleet", .bool(true)),
                    ("cursor", status.cursor.map { .number(Double($0)) } ?? .null),
                    ("lag", status.lag.map { .number(Double($0)) } ?? .null),
                    ("maxInFlight", .integer(Self.window(of: status.entry, context).window)),
                    ("deadLetters", .integer(status.deadLetters)),
                    ("deadLettersOfGoneStreams", .integer(status.deadLettersOfGoneStreams)),
                ]
                if let retry = status.retry { members += Self.retryMembers(retry) }
                return .object(members)
            }
            context.console.print(JSONWriter.compact(.array(items + fleetItems)))
            return .success
        }
        guard !subscribers.isEmpty else {
            context.console.print(Catalog.Results.noSubscribers)
            for losses in lost { context.console.print(Catalog.Delivery.lost(losses)) }
            return .success
        }
        let results = Catalog.Results.self
        let delivery = Catalog.Delivery.self
        var rows = [
            [
                results.subscriber(language), results.type(language), results.state(language), delivery.cursor(language),
                results.lag(language), delivery.inFlight(language), delivery.nextAttempt(language), results.deadLetters(language),
            ]
        ]
        rows += subscribers.map { entry in
            var state = entry.enabled ? results.enabled(language) : results.disabled(language)
            let name = Catalog.echo(entry.name)
            guard let status = statuses[entry.name] else {
                let none = results.notDurable(language)
                return [name, entry.type, state, none, none, none, none, none]
            }
            let next = Self.nextAttempt(status.retry, state: &state, language: language)
            let (window, ordered) = Self.window(of: entry, context)
            return [
                name, entry.type, state, "\(status.cursor)", "\(status.lag)", delivery.window(window, ordered: ordered)(language), next,
                "\(status.deadLetters)",
            ]
        }
        rows += fleet.map { status in
            var state = status.entry.enabled ? results.enabled(language) : results.disabled(language)
            let next = Self.nextAttempt(status.retry, state: &state, language: language)
            let (window, ordered) = Self.window(of: status.entry, context)
            return [
                Catalog.echo(status.name), status.entry.type, state, status.cursor.map(String.init) ?? "?",
                status.lag.map(String.init) ?? "?", delivery.window(window, ordered: ordered)(language), next, "\(status.deadLetters)",
            ]
        }
        context.console.standardOutput.write(TableLayout.render(rows))
        for losses in lost { context.console.print(Catalog.Delivery.lost(losses)) }
        for status in fleet where status.deadLettersOfGoneStreams > 0 {
            context.console.print(Catalog.Delivery.lettersOfGoneStream(status.name, count: status.deadLettersOfGoneStreams))
        }
        for entry in subscribers {
            guard let rewind = rewinds[entry.name], let status = statuses[entry.name], status.cursor < rewind.from else { continue }
            context.console.print(Catalog.Delivery.replaying(entry.name, rewind, cursor: status.cursor))
        }
        if let history, history.through > 0, !statuses.isEmpty {
            context.console.print(Catalog.StoreCommands.historyStarts(history))
        }
        return .success
    }

    /// A subscriber's lost events in `--json`: `[[first, last], …]`, with when.
    private static func lostMembers(_ losses: [LostEvents]) -> JSONValue {
        .array(
            losses.map { lost in
                .object([
                    ("sequences", .array([.number(Double(lost.sequences.lowerBound)), .number(Double(lost.sequences.upperBound))])),
                    ("recoveredAt", .number(lost.recoveredAt)),
                ])
            })
    }

    /// How many deliveries `entry` keeps in flight at most, and whether for order:
    /// its `maxInFlight` and `ordered` when its plugin declares them, else one.
    private static func window(of entry: SubscriberEntry, _ context: CommandContext) -> (window: Int, ordered: Bool) {
        let keys = context.registry.plugin(named: entry.type)?.configuration ?? []
        guard keys.contains(where: { $0.name == ConfigurationKey.maxInFlight.name }) else { return (1, false) }
        let ordered = (try? entry.configuration.bool(.ordered)) == true
        return ((try? entry.configuration.deliveryWindow()) ?? ConfigurationKey.defaultMaxInFlight, ordered)
    }

    /// The NEXT ATTEMPT cell of a retry state; a subscriber its destination stopped
    /// (until `juice subscribers retry`) has none, and its STATE says what stopped it.
    private static func nextAttempt(_ retry: DeliveryRetryState?, state: inout String, language: Language) -> String {
        guard let retry else { return "-" }
        if retry.disabled {
            state = Catalog.Delivery.stopped(because: retry.lastError)(language)
            return "-"
        }
        return Catalog.Delivery.clock(retry.nextAttemptAt) + " (#\(retry.attempts + 1))"
    }

    /// The JSON members of a retry state.
    private static func retryMembers(_ retry: DeliveryRetryState) -> [(key: String, value: JSONValue)] {
        [
            ("attempts", .integer(retry.attempts)),
            ("nextAttempt", retry.disabled ? .null : .string(RFC3339.format(Date(timeIntervalSince1970: retry.nextAttemptAt)))),
            ("stopped", .bool(retry.disabled)),
            ("lastError", .string(retry.lastError)),
        ]
    }
}
