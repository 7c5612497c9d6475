import Foundation
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// Appends each event's CloudEvents JSON line to a file (`type: "jsonl"`). Each attempt
/// is first logged (the event's id, a line of `<path>.attempts`); the first `failFirst`
/// attempts at each event are answered "retry", and events of the `refuse` kinds are
/// refused every time, so the host's retries and dead letters can be seen.
public final class JSONLinesFile: DurableDeliveryPlugin {
    static let pathKey = ConfigurationKey(
        "path", .string([.nonEmpty("path"), .noNUL]), required: true,
        description: "The file each event's JSON line is appended to; relative to the store's directory.")
    static let failFirstKey = ConfigurationKey(
        "failFirst", .integer(0...100), default: .number(0), description: "Attempts at each event answered with retry before it is taken.")
    static let refuseKey = ConfigurationKey(
        "refuse", .list(.oneOf(EventKind.allCases.map(\.rawValue)), unique: true),
        description: "Kinds of event refused on every attempt: after the retry schedule they are dead letters.")
    public static let declaration = PluginDeclaration.destination(
        JSONLinesFile.self, type: "jsonl", configuration: [pathKey, failFirstKey, refuseKey, .retrySchedule])

    public let deliverySettings: DeliverySettings
    private let destination: Destination

    public init(configuration: PluginConfiguration, context: PluginContext) throws(ConfigurationError) {
        let path = try configuration.string(Self.pathKey) ?? ""
        try context.requireDirectory(of: path, at: configuration.path + ".path")
        destination = Destination(
            path: context.filePath(path), failFirst: Int(try configuration.number(Self.failFirstKey) ?? 0),
            refused: try configuration.eventKinds(Self.refuseKey) ?? [])
        deliverySettings = DeliverySettings(kinds: nil, schedule: try configuration.retrySchedule(.retrySchedule) ?? .standard)
    }

    public func makeDestination(for host: PluginHost) throws(PluginError) -> any DurableDestination { destination }

    /// One event at a time, answered before `send` returns.
    struct Destination: DurableDestination {
        let path: String
        let failFirst: Int
        let refused: Set<EventKind>
        var intake: DeliveryIntake { .window(1) }

        func send(_ offer: DeliveryOffer) {
            for (position, event) in zip(0..., offer.events) { offer.answer(position, deliver(event)) }
        }

        private func deliver(_ event: CommittedEvent) -> DeliveryAnswer {
            let (id, kind) = ("\(event.envelope.id)", event.envelope.event.kind)
            do {
                try append(id + "\n", to: path + ".attempts")
                let attempts = try String(contentsOfFile: path + ".attempts", encoding: .utf8).split(separator: "\n").count { $0 == id }
                if refused.contains(kind) { return retry("\(kind) events are refused (refuse)", "\(kind) 이벤트는 거절합니다(refuse)") }
                if attempts <= failFirst {
                    return retry("attempt \(attempts) is answered with retry (failFirst)", "\(attempts)번째 시도에 재시도를 답합니다(failFirst)")
                }
                try append((event.text ?? CloudEventFormat.encode(event.envelope)) + "\n", to: path)
                return .accepted
            } catch {
                return retry("cannot write \(path): \(error)", "\(path)에 쓸 수 없습니다: \(error)")
            }
        }

        private func append(_ line: String, to file: String) throws {
            if !FileManager.default.fileExists(atPath: file) { try Data().write(to: URL(fileURLWithPath: file)) }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(line.utf8))
        }

        private func retry(_ english: String, _ korean: String) -> DeliveryAnswer {
            .retry(PluginMessage(english: english, korean: korean))
        }

        func cancelSends() {}
        func stop(deadline: ContinuousClock.Instant) async {}
    }
}
