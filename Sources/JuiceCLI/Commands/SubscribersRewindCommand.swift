#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FleetConfiguration
import JuiceMakerCore
import JuicePrimitives
import SQLiteStore

/// `juice subscribers rewind <name> --to TIME|SEQUENCE`: moves a durable subscriber's
/// cursor back so its receiver gets the events from there on again, with the ids it
/// already knows (its key for dropping what it has). Never before where history starts
/// (refused with one line saying where), never forward. The next `juice deliver` (or
/// the background one) sends them. A subscriber another process is delivering for
/// (`juice deliver --follow`) is refused with exit 75: that process would carry its
/// cursor forward again.
struct SubscribersRewindCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "rewind",
        abstract: LocalizedText(
            "Move a durable subscriber's cursor back so it gets the events from a time or sequence again.",
            ko: "내구성 구독자의 커서를 되돌려 어느 시각이나 순번부터의 이벤트를 다시 받게 합니다."))

    struct Options: CommandOptions {
        let name: Argument<String>
        let to: Option<SQLiteStore.RewindTarget>
        init(_ options: inout OptionList) {
            name = options.subscriberName()
            to = options.required(
                "to", value: "time|sequence",
                help: LocalizedText(
                    "The first event to send again: a sequence (120), a time (2026-11-21T09:00:00Z) or a date (2026-11-21, UTC).",
                    ko: "다시 보낼 첫 이벤트: 순번(120), 시각(2026-11-21T09:00:00Z) 또는 날짜(2026-11-21, UTC).")
            ) { text, _ throws(CLIError) in
                if !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) {
                    guard let sequence = Int64(text), sequence >= 1, sequence <= EventEnvelope.greatestSequence else {
                        throw CLIError(.badValue, Catalog.Delivery.badRewindTarget(text))
                    }
                    return .sequence(sequence)
                }
                guard let milliseconds = ReportWindow.time(text) else { throw CLIError(.badValue, Catalog.Delivery.badRewindTarget(text)) }
                return .time(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            }
        }
    }

    let name: String
    let target: SQLiteStore.RewindTarget

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        name = try options.name.value
        target = try options.to.value
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let context = session.context
        if let fed = Fleet.subscriber(fromBookkeepingName: name) {
            let point: FleetRewind.Point =
                switch target {
                case .sequence(let sequence): .sequence(sequence)
                case .time(let date): .time(date)
                }
            return try FleetRewind.run(session, subscriber: fed, to: point)
        }
        guard let built = session.builtPlugins.first(where: { $0.entry.name == name }) else {
            throw CLIError(.badValue, Catalog.Delivery.unknownSubscriber(name))
        }
        guard built.durable != nil else { throw CLIError(.badValue, Catalog.Delivery.notDurable(name)) }
        let store = try StoreCommandSupport.store(session)
        let lease: DeliveryLease?
        do {
            lease = try store.takeDeliveryLease(for: name)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        guard let lease else { throw CLIError(.tryLater, Catalog.Delivery.rewindWhileDelivering(name)) }
        defer { lease.release() }
        let outcome: RewindOutcome
        do {
            outcome = try store.rewind(name, to: target)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        switch outcome {
        case .rewound(let rewind):
            let last = (try? store.lastSequence()) ?? rewind.from
            context.printResult(
                json: .object([
                    ("name", .string(name)), ("from", .number(Double(rewind.from))), ("to", .number(Double(rewind.to))),
                    ("events", .number(Double(max(0, last - rewind.to)))),
                ]),
                lines: [Catalog.Delivery.rewound(name, rewind, last: last)(context.language)])
            return .success
        case .notBehind(let cursor):
            context.printResult(
                json: .object([("name", .string(name)), ("from", .number(Double(cursor))), ("to", .number(Double(cursor))), ("events", .integer(0))]),
                lines: [Catalog.Delivery.notBehind(name, cursor: cursor)(context.language)])
            return .success
        case let .beforeHistory(start, firstTime):
            throw CLIError(.badValue, Catalog.Delivery.beforeHistory(start, firstTime: firstTime))
        }
    }
}

extension Catalog.Delivery {
    static func badRewindTarget(_ text: String) -> LocalizedText {
        let shown = Catalog.echo(text)
        return LocalizedText(
            "--to \(shown) is neither a sequence (1 or more) nor a time: give e.g. --to 120, --to 2026-11-21T09:00:00Z or --to 2026-11-21",
            ko: "--to \(shown)은(는) 순번(1 이상)도 시각도 아닙니다. 예: --to 120, --to 2026-11-21T09:00:00Z, --to 2026-11-21")
    }

    static func rewindWhileDelivering(_ name: String) -> LocalizedText {
        let name = Catalog.echo(name)
        return LocalizedText(
            "'\(name)' is being delivered by another juice process (juice deliver --follow?): stop it, rewind, then start it again",
            ko: "다른 juice 프로세스(juice deliver --follow?)가 '\(name)'을(를) 전달하고 있습니다. 멈추고 되감은 뒤 다시 시작하세요")
    }

    static func rewound(_ name: String, _ rewind: CursorRewind, last: Int64) -> LocalizedText {
        let name = Catalog.echo(name)
        let count = max(0, last - rewind.to)
        return LocalizedText(
            "'\(name)' rewound from sequence \(rewind.from) to \(rewind.to): the \(EnglishCount.of(count, "event")) after it \(EnglishCount.choose(count, "is", "are")) sent again, with their ids, by the next juice deliver",
            ko: "'\(name)'을(를) 순번 \(rewind.from)에서 \(rewind.to)(으)로 되감았습니다. 그 뒤 이벤트 \(count)개를 다음 juice deliver가 같은 id로 다시 보냅니다")
    }

    static func replaying(_ name: String, _ rewind: CursorRewind, cursor: Int64) -> LocalizedText {
        let name = Catalog.echo(name)
        let at = RFC3339.format(Date(timeIntervalSince1970: rewind.at))
        return LocalizedText(
            "'\(name)' was rewound at \(at) from sequence \(rewind.from) to \(rewind.to): \(rewind.from - cursor) of those events still to send again",
            ko: "'\(name)'은(는) \(at)에 순번 \(rewind.from)에서 \(rewind.to)(으)로 되감겼습니다. 그 이벤트 중 \(rewind.from - cursor)개를 아직 다시 보내야 합니다")
    }

    static func notBehind(_ name: String, cursor: Int64) -> LocalizedText {
        let name = Catalog.echo(name)
        return LocalizedText(
            "'\(name)' is at sequence \(cursor), not past that point: nothing changed",
            ko: "'\(name)'은(는) 순번 \(cursor)에 있어 그 지점을 지나지 않았습니다. 바뀐 것이 없습니다")
    }

    static func beforeHistory(_ start: Int64, firstTime: Date?) -> LocalizedText {
        let time = firstTime.map { " (" + RFC3339.format($0) + ")" } ?? ""
        return LocalizedText(
            "history starts at sequence \(start)\(time): the events before it were deleted by retention (store.retention); rewind to \(start) or later",
            ko: "기록은 순번 \(start)\(time)부터입니다. 그 앞의 이벤트는 보관 기간(store.retention)에 따라 지워졌습니다. \(start) 이후로 되감으세요")
    }
}
