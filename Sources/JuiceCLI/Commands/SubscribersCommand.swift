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

/// `juice subscribers`: each configured subscriber, its type, whether it is enabled,
/// and, for durable ones (webhook, command), its cursor, how many events it is
/// behind, when its failing event is tried next, and how many it gave up on.
struct SubscribersCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribers",
        abstract: LocalizedText(
            "List the configured subscribers, their state and cursor lag.", ko: "설정된 구독자와 상태, 커서 지연을 보여 줍니다."),
        subcommands: [SubscribersRetryCommand.self])

    init(_ invocation: Invocation) throws(CLIError) {}

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        let language = context.language
        let journal = try session.journal()
        let subscribers = context.config.subscribers
        var statuses: [String: DurableSubscriberStatus] = [:]
        do {
            for entry in subscribers where context.registry.plugin(named: entry.type) is any DurableDeliveryPlugin.Type {
                statuses[entry.name] = try DurableSubscriberStatus.read(entry.name, from: journal)
            }
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        if context.settings.json {
            let items = subscribers.map { entry -> ConfigValue in
                let status = statuses[entry.name]
                var members: [(key: String, value: ConfigValue)] = [
                    ("name", .string(entry.name)),
                    ("type", .string(entry.type)),
                    ("enabled", .bool(entry.enabled)),
                    ("cursor", status.map { .number(Double($0.cursor)) } ?? .null),
                    ("lag", status.map { .number(Double($0.lag)) } ?? .null),
                    ("deadLetters", status.map { .integer($0.deadLetters) } ?? .integer(0)),
                ]
                if let retry = status?.retry {
                    members += [
                        ("attempts", .integer(retry.attempts)),
                        ("nextAttempt", retry.disabled ? .null : .string(RFC3339.format(Date(timeIntervalSince1970: retry.nextAttemptAt)))),
                        ("stopped", .bool(retry.disabled)),
                        ("lastError", .string(retry.lastError)),
                    ]
                }
                return .object(members)
            }
            context.console.print(JSONWriter.compact(.array(items)))
            return .success
        }
        guard !subscribers.isEmpty else {
            context.console.print(Catalog.Results.noSubscribers)
            return .success
        }
        let results = Catalog.Results.self
        let delivery = Catalog.Delivery.self
        var rows = [
            [
                results.subscriber(language), results.type(language), results.state(language), delivery.cursor(language),
                results.lag(language), delivery.nextAttempt(language), results.deadLetters(language),
            ]
        ]
        rows += subscribers.map { entry in
            var state = entry.enabled ? results.enabled(language) : results.disabled(language)
            let name = Catalog.echo(entry.name)
            guard let status = statuses[entry.name] else {
                let none = results.notDurable(language)
                return [name, entry.type, state, none, none, none, none]
            }
            var next = "-"
            if let retry = status.retry {
                // Stopped by its destination (410 Gone) until `juice subscribers retry`:
                // a state, with no next attempt.
                if retry.disabled {
                    state = delivery.stopped(language)
                } else {
                    next = delivery.clock(retry.nextAttemptAt) + " (#\(retry.attempts + 1))"
                }
            }
            return [name, entry.type, state, "\(status.cursor)", "\(status.lag)", next, "\(status.deadLetters)"]
        }
        context.console.standardOutput.write(TableLayout.render(rows))
        return .success
    }
}
