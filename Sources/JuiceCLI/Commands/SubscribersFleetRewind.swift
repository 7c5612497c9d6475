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
import FleetConfiguration
import JuiceMakerCore
import JuicePrimitives
import NATSClient

/// `juice subscribers rewind NAME@fleet --to TIME|SEQUENCE`: the fleet half of a rewind.
/// A fleet subscriber's place is its durable consumer on the server, which NATS does not
/// let move back: the consumer is deleted and created again, starting at the stream
/// sequence or at the first message stored at or after the time. Every message from
/// there is sent again by the next `juice fleet deliver`, with the event ids the
/// receiver already knows. Refused while a deliverer reads the consumer (a pull request
/// is waiting on it: it would hold on to what it already did), and before where the
/// stream's history now starts (its limits dropped the messages before).
enum FleetRewind {
    /// Where the consumer starts again.
    enum Point {
        /// A stream sequence.
        case sequence(Int64)
        case time(Date)
    }

    /// How long a reader is looked for: longer than one fetch of `juice fleet deliver
    /// --follow` (1 s), so one that is running has a pull request waiting at some look.
    static let readerLook = Duration.milliseconds(1500)

    static func run(_ session: Session, subscriber name: String, to point: Point) throws(CLIError) -> ExitCode {
        let context = session.context
        let shown = Fleet.bookkeepingName(name)
        guard let built = session.builtPlugins.first(where: { $0.entry.name == name }), built.declaration.isFedFromFleet else {
            throw CLIError(.badValue, Catalog.Delivery.unknownSubscriber(shown))
        }
        guard context.config.fleet != nil else { throw CLIError(.config, Catalog.Delivery.fleetRewindWithoutFleet(shown)) }
        let reader = try FleetCommandSupport.reader(context, nats: nil)
        defer { reader.connection.close() }
        let consumer = Fleet.consumerName(name)
        let summary = reader.summary
        // The stream's limits dropped what came before its first message.
        if summary.firstSequence > 1 {
            let before: Bool
            switch point {
            case .sequence(let sequence): before = UInt64(sequence) < summary.firstSequence
            case .time(let date): before = summary.firstTime.map { date < $0 } ?? false
            }
            if before {
                throw CLIError(.badValue, Catalog.Delivery.beforeStreamHistory(reader.stream, first: summary.firstSequence, at: summary.firstTime))
            }
        }
        let deadline = ContinuousClock.now + readerLook
        repeat {
            let state: ConsumerState?
            do {
                state = try reader.connection.consumer(consumer, of: reader.stream)
            } catch {
                throw FleetCommandSupport.failure(error)
            }
            if let state, state.waiting > 0 { throw CLIError(.tryLater, Catalog.Delivery.fleetRewindWhileDelivering(shown)) }
            if state == nil { break }
            usleep(100_000)  // between looks at the consumer on the server: it has no signal to wait on
        } while ContinuousClock.now < deadline
        let rewound: ConsumerState
        do {
            let target: NATSConnection.RewindPoint =
                switch point {
                case .sequence(let sequence): .streamSequence(UInt64(sequence))
                case .time(let date): .time(date)
                }
            rewound = try reader.connection.rewindConsumer(consumer, of: reader.stream, settings: reader.consumerSettings, to: target)
        } catch {
            throw FleetCommandSupport.failure(error)
        }
        // A retry under way was for the place left.
        if let journal = try? session.journal() { try? journal.setRetryState(nil, for: shown) }
        let count = rewound.pending
        context.printResult(
            json: .object([
                ("name", .string(shown)), ("stream", .string(reader.stream)), ("messages", .number(Double(count))),
            ]),
            lines: [Catalog.Delivery.fleetRewound(shown, stream: reader.stream, point: point, messages: count)(context.language)])
        return .success
    }
}

extension Catalog.Delivery {
    static func fleetRewindWithoutFleet(_ name: String) -> LocalizedText {
        let name = Catalog.echo(name)
        return LocalizedText(
            "'\(name)' is a fleet subscriber but the config has no fleet section with a url: add one (juice help fleet)",
            ko: "'\(name)'은(는) fleet 구독자인데 설정에 url이 있는 fleet 섹션이 없습니다. 추가하세요 (juice help fleet)")
    }

    static func fleetRewindWhileDelivering(_ name: String) -> LocalizedText {
        let name = Catalog.echo(name)
        return LocalizedText(
            "'\(name)' is being read by a juice fleet deliver (a pull request waits on its consumer): stop it, rewind, then start it again",
            ko: "juice fleet deliver가 '\(name)'을(를) 읽고 있습니다(컨슈머에 풀 요청이 기다립니다). 멈추고 되감은 뒤 다시 시작하세요")
    }

    static func beforeStreamHistory(_ stream: String, first: UInt64, at time: Date?) -> LocalizedText {
        let stream = Catalog.echo(stream)
        let at = time.map { " (" + RFC3339.format($0) + ")" } ?? ""
        return LocalizedText(
            "stream \(stream)'s history starts at stream sequence \(first)\(at): its limits (maxAge, maxBytes) dropped the messages before; rewind to \(first) or later",
            ko: "스트림 \(stream)의 기록은 스트림 순번 \(first)\(at)부터입니다. 한도(maxAge, maxBytes)에 따라 그 앞의 메시지가 지워졌습니다. \(first) 이후로 되감으세요")
    }

    static func fleetRewound(_ name: String, stream: String, point: FleetRewind.Point, messages: UInt64) -> LocalizedText {
        let (name, stream) = (Catalog.echo(name), Catalog.echo(stream))
        let english: String
        let korean: String
        switch point {
        case .sequence(let sequence):
            (english, korean) = ("stream sequence \(sequence)", "스트림 순번 \(sequence)")
        case .time(let date):
            let time = RFC3339.format(date)
            (english, korean) = ("the first message stored at or after \(time)", "\(time) 이후 처음 저장된 메시지")
        }
        return LocalizedText(
            "'\(name)' rewound to \(english) of stream \(stream): the next juice fleet deliver sends its \(EnglishCount.of(messages, "message")) from there again, with their event ids",
            ko: "'\(name)'을(를) 스트림 \(stream)의 \(korean)(으)로 되감았습니다. 다음 juice fleet deliver가 거기서부터 메시지 \(messages)개를 같은 이벤트 id로 다시 보냅니다")
    }
}
