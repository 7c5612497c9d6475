import EventBus
import Foundation

/// The payload every mechanism carries: small, typed, the same for all.
struct BenchEvent: Sendable {
    let sequence: Int
    let value: Int
}

/// The delegate side: one typed call through a protocol existential.
protocol BenchReceiver: AnyObject {
    func receive(_ event: BenchEvent)
}

final class SummingReceiver: BenchReceiver {
    let tally = Tally()
    func receive(_ event: BenchEvent) { tally.add(event.value) }
}

/// A counter the handlers under measurement bump, so no mechanism is optimised away.
///
/// @unchecked Sendable: in every figure one thread at a time writes a given counter
/// (the publisher for synchronous mechanisms, the one consumer for queued ones), and
/// it is read only after `drain`/`wait` has ordered those writes before the read.
/// Plain adds keep the handler's own cost equal for every mechanism.
final class Tally: @unchecked Sendable {
    private var value = 0
    @inline(never) func add(_ amount: Int) { value &+= amount }
    var total: Int { value }
}

/// `juice-bench bus`: ns per event for the bus and its baselines, in one process.
enum BusBench {
    static let syncOperations = 5_000_000
    static let queuedOperations = 2_000_000

    static func run(json: Bool) -> [(String, Double)] {
        let direct = directCall()
        let closures = closureArray()
        let sync1 = syncBus(subscribers: 1)
        let sync4 = syncBus(subscribers: 4)
        let queued = queuedBus()
        let notificationCenter = notificationCenterPost()
        let asyncStream = asyncStreamThroughput()
        let figures: [(String, Double)] = [
            ("direct_ns", direct), ("closure_ns", closures), ("sync1_ns", sync1), ("sync4_ns", sync4),
            ("queued_ns", queued), ("notificationcenter_ns", notificationCenter), ("asyncstream_ns", asyncStream),
        ]
        if !json {
            print("bus: ns per event (median of 7 rounds; queued and AsyncStream: publish to last delivery)")
            let rows: [(String, Double, String)] = [
                ("direct protocol call", direct, "delegate baseline"),
                ("closure array (1)", closures, "baseline"),
                ("EventBus sync, 1 subscriber", sync1, "target ≤ 30 ns, ≥ 30× NotificationCenter: \(Measure.format(notificationCenter / sync1))×"),
                ("EventBus sync, 4 subscribers", sync4, "target ≤ 60 ns"),
                ("EventBus queued, 1 subscriber", queued, "target ≤ 100 ns, ≥ 15× AsyncStream: \(Measure.format(asyncStream / queued))×"),
                ("NotificationCenter post (userInfo)", notificationCenter, "baseline"),
                ("AsyncStream, 1 consumer", asyncStream, "baseline"),
            ]
            for (name, value, note) in rows {
                let padded = name.padding(toLength: 38, withPad: " ", startingAt: 0)
                let number = Measure.format(value).leftPadded(to: 9)
                print("  \(padded)\(number) ns   \(note)")
            }
        }
        return figures
    }

    static func directCall() -> Double {
        let receiver: any BenchReceiver = SummingReceiver()
        return Measure.nanosecondsPerOperation(operations: syncOperations) { n in
            for i in 0..<n { receiver.receive(BenchEvent(sequence: i, value: 1)) }
        }
    }

    @inline(never)
    static func makeHandlers(_ tally: Tally) -> [(BenchEvent) -> Void] {
        [{ tally.add($0.value) }]
    }

    static func closureArray() -> Double {
        let handlers = makeHandlers(Tally())
        return Measure.nanosecondsPerOperation(operations: syncOperations) { n in
            for i in 0..<n {
                let event = BenchEvent(sequence: i, value: 1)
                for handler in handlers { handler(event) }
            }
        }
    }

    static func syncBus(subscribers: Int) -> Double {
        let bus = EventBus<BenchEvent>()
        let tally = Tally()
        for index in 0..<subscribers {
            bus.subscribe("bench-\(index)") { tally.add($0.value) }
        }
        return Measure.nanosecondsPerOperation(operations: syncOperations) { n in
            for i in 0..<n { bus.publish(BenchEvent(sequence: i, value: 1)) }
        }
    }

    static func queuedBus() -> Double {
        let bus = EventBus<BenchEvent>()
        let tally = Tally()
        bus.subscribe("bench-queued", delivery: .queued(capacity: 1 << 20, whenFull: .dropNewest)) { tally.add($0.value) }
        return Measure.nanosecondsPerOperation(operations: queuedOperations) { n in
            for i in 0..<n { bus.publish(BenchEvent(sequence: i, value: 1)) }
            _ = bus.drain(timeout: .seconds(60))
        }
    }

    static func notificationCenterPost() -> Double {
        let center = NotificationCenter()
        let name = Notification.Name("juicemaker.bench")
        let tally = Tally()
        let observer = center.addObserver(forName: name, object: nil, queue: nil) { note in
            if let event = note.userInfo?["event"] as? BenchEvent { tally.add(event.value) }
        }
        defer { center.removeObserver(observer) }
        return Measure.nanosecondsPerOperation(operations: syncOperations / 10) { n in
            for i in 0..<n {
                center.post(name: name, object: nil, userInfo: ["event": BenchEvent(sequence: i, value: 1)])
            }
        }
    }

    static func asyncStreamThroughput() -> Double {
        Measure.nanosecondsPerOperation(operations: queuedOperations / 4) { n in
            let (stream, continuation) = AsyncStream<BenchEvent>.makeStream(bufferingPolicy: .unbounded)
            let done = DispatchSemaphore(value: 0)
            let tally = Tally()
            Task.detached {
                for await event in stream { tally.add(event.value) }
                done.signal()
            }
            for i in 0..<n { continuation.yield(BenchEvent(sequence: i, value: 1)) }
            continuation.finish()
            done.wait()
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
