import EventBus
import Foundation
import JuiceMakerCore
import Locking

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
        // `juice-bench` runs its sections synchronously on the main thread.
        let mainActorMessage = MainActor.assumeIsolated { mainActorMessagePost() }
        let asyncMessage = asyncMessageDelivery()
        let sequence = makerEventsThroughput()
        let latency = oneAtATime()
        let figures: [(String, Double)] = [
            ("direct_ns", direct), ("closure_ns", closures), ("sync1_ns", sync1), ("sync4_ns", sync4),
            ("queued_ns", queued), ("notificationcenter_ns", notificationCenter), ("asyncstream_ns", asyncStream),
            ("mainactormessage_ns", mainActorMessage), ("asyncmessage_post_ns", asyncMessage.post),
            ("asyncmessage_delivery_ns", asyncMessage.delivery),
            ("asyncmessage_out_of_order", Double(asyncMessage.outOfOrder)), ("maker_events_ns", sequence.cost),
            ("maker_change_alone_ns", sequence.changesAlone),
            ("queued_latency_ns", latency.queued), ("maker_events_latency_ns", latency.sequence),
            ("asyncmessage_latency_ns", latency.asyncMessage),
        ]
        if !json {
            print("bus: ns per event (median of 7 rounds; queued, AsyncStream, maker.events() and AsyncMessage delivery: publish to last delivery)")
            let rows: [(String, Double, String)] = [
                ("direct protocol call", direct, "delegate baseline"),
                ("closure array (1)", closures, "baseline"),
                ("EventBus sync, 1 subscriber", sync1, "target ≤ 30 ns, ≥ 30× NotificationCenter: \(Measure.format(notificationCenter / sync1))×"),
                ("EventBus sync, 4 subscribers", sync4, "target ≤ 60 ns"),
                ("EventBus queued, 1 subscriber", queued, "target ≤ 100 ns, ≥ 15× AsyncStream: \(Measure.format(asyncStream / queued))×"),
                ("NotificationCenter post (userInfo)", notificationCenter, "baseline"),
                ("AsyncStream, 1 consumer", asyncStream, "baseline"),
                (
                    "maker.events(), 1 consumer", sequence.cost,
                    "\(Measure.format(sequence.cost / queued))× EventBus queued; added to a committed change (in-memory, \(Measure.format(sequence.changesAlone)) ns alone)"
                ),
                ("MainActorMessage post, 1 observer", mainActorMessage, "\(Measure.format(mainActorMessage / sync1))× EventBus sync"),
                (
                    "AsyncMessage post, 1 observer", asyncMessage.post,
                    "\(Measure.format(asyncMessage.post / sync1))× EventBus sync (the poster's cost)"
                ),
                (
                    "AsyncMessage, post to last delivery", asyncMessage.delivery,
                    "\(Measure.format(asyncMessage.delivery / queued))× EventBus queued; \(asyncMessage.outOfOrder) of \(asyncMessage.delivered) out of order"
                ),
                ("one at a time: EventBus queued", latency.queued, "publish, wait for the handler, repeat"),
                (
                    "one at a time: maker.events()", latency.sequence,
                    "\(Measure.format(latency.sequence / latency.queued))× EventBus queued; includes the change"
                ),
                ("one at a time: AsyncMessage", latency.asyncMessage, "\(Measure.format(latency.asyncMessage / latency.queued))× EventBus queued"),
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

/// The `Subject` of the bench's typed NotificationCenter messages (observed for any).
final class BenchSubject: Sendable {}

/// A typed message delivered synchronously on the main actor.
struct BenchMainActorMessage: NotificationCenter.MainActorMessage {
    typealias Subject = BenchSubject
    let event: BenchEvent
}

/// A typed message delivered to its observers in tasks.
struct BenchAsyncMessage: NotificationCenter.AsyncMessage {
    typealias Subject = BenchSubject
    let event: BenchEvent
}

/// What an `AsyncMessage` observer has received: a count the poster can wait for and
/// how many arrived after a later-posted message.
struct AsyncDeliveries {
    var delivered = 0
    var target = 0
    var lastSequence = -1
    var outOfOrder = 0
}

extension BusBench {
    /// Foundation's typed, main-actor message: `post` runs the observer before it returns.
    @MainActor
    static func mainActorMessagePost() -> Double {
        let center = NotificationCenter()
        let tally = Tally()
        let token = center.addObserver(for: BenchMainActorMessage.self) { message in tally.add(message.event.value) }
        defer { center.removeObserver(token) }
        let figure = Measure.nanosecondsPerOperation(operations: syncOperations / 20) { n in
            for i in 0..<n { center.post(BenchMainActorMessage(event: BenchEvent(sequence: i, value: 1))) }
        }
        // Every post must have reached the observer before it returned.
        return tally.total == syncOperations / 200 + 7 * (syncOperations / 20) ? figure : .nan
    }

    /// Foundation's typed, asynchronous message, one observer: the poster's cost per
    /// post, and the time from the first post to the last delivery per event, from the
    /// same rounds (median of 7); with how many deliveries overtook an earlier post.
    static func asyncMessageDelivery() -> (post: Double, delivery: Double, outOfOrder: Int, delivered: Int) {
        let operations = queuedOperations / 100
        let center = NotificationCenter()
        let deliveries = LockedCondition(AsyncDeliveries())
        let token = center.addObserver(for: BenchAsyncMessage.self) { message in
            let reached = deliveries.withLock { state -> Bool in
                state.delivered += 1
                if message.event.sequence < state.lastSequence { state.outOfOrder += 1 }
                state.lastSequence = message.event.sequence
                return state.delivered == state.target
            }
            if reached { deliveries.change { _ in } }
        }
        defer { center.removeObserver(token) }
        var posts: [Double] = []
        var ends: [Double] = []
        for round in 0...7 {
            let n = round == 0 ? operations / 10 : operations  // round 0 warms up
            deliveries.withLock { state in
                state.target += n
                state.lastSequence = -1
            }
            let start = DispatchTime.now().uptimeNanoseconds
            for i in 0..<n { center.post(BenchAsyncMessage(event: BenchEvent(sequence: i, value: 1))) }
            let posted = DispatchTime.now().uptimeNanoseconds
            _ = deliveries.wait(until: nil) { $0.delivered >= $0.target }
            let end = DispatchTime.now().uptimeNanoseconds
            if round > 0 {
                posts.append(Double(posted - start) / Double(n))
                ends.append(Double(end - start) / Double(n))
            }
        }
        let (outOfOrder, delivered) = deliveries.withLock { ($0.outOfOrder, $0.delivered) }
        return (Measure.median(posts), Measure.median(ends), outOfOrder, delivered)
    }

    /// One change through the maker: alternately restocks and takes out one kiwi, so
    /// the stock never drifts; each change commits and publishes one event.
    static func change(_ maker: JuiceMaker, _ i: Int) {
        if i & 1 == 0 { _ = try? maker.add(1, of: .kiwi) } else { _ = try? maker.remove(1, of: .kiwi) }
    }

    /// `maker.events()` with one consumer task, fed by real changes (in-memory store):
    /// the commit to the consumer's last `next()`, less the same changes with no
    /// consumer measured in the same rounds (the maker's bus is private: only a
    /// committed change reaches it). A buffer as large as the round, so nothing drops.
    static func makerEventsThroughput() -> (cost: Double, changesAlone: Double) {
        let maker = JuiceMaker(store: InMemoryStore())
        let alone = Measure.nanosecondsPerOperation(operations: queuedOperations / 4) { n in
            for i in 0..<n { change(maker, i) }
        }
        let dropped = Locked(0)
        let withConsumer = Measure.nanosecondsPerOperation(operations: queuedOperations / 4) { n in
            guard let events = try? maker.events("bench-sequence", capacity: n) else { return }
            let done = DispatchSemaphore(value: 0)
            let tally = Tally()
            Task.detached {
                var received = 0
                for await envelope in events {
                    tally.add(Int(envelope.sequence))
                    received += 1
                    if received == n { break }
                }
                done.signal()
            }
            for i in 0..<n { change(maker, i) }
            done.wait()
            dropped.withLock { $0 += events.dropped }
            events.cancel()
        }
        guard dropped.withLock({ $0 }) == 0 else { return (.nan, alone) }
        return (max(0, withConsumer - alone), alone)
    }
}

extension BusBench {
    static let roundTrips = 2_000

    /// Latency rather than throughput: each event is published only after the previous
    /// one reached its receiver (queued bus, `maker.events()` consumer task,
    /// `AsyncMessage` observer), so every delivery pays its own wake-up.
    static func oneAtATime() -> (queued: Double, sequence: Double, asyncMessage: Double) {
        let bus = EventBus<BenchEvent>()
        let busReceived = LockedCondition(0)
        let subscription = bus.subscribe("bench-latency", delivery: .queued()) { _ in busReceived.change { $0 += 1 } }
        let queued = roundTrip(received: busReceived) { bus.publish(BenchEvent(sequence: $0, value: 1)) }
        subscription.cancel()

        let maker = JuiceMaker(store: InMemoryStore())
        let sequenceReceived = LockedCondition(0)
        var sequence = Double.nan
        if let events = try? maker.events("bench-latency") {
            let consumer = Task.detached {
                for await _ in events { sequenceReceived.change { $0 += 1 } }
            }
            sequence = roundTrip(received: sequenceReceived) { change(maker, $0) }
            events.cancel()
            Measure.blocking { await consumer.value }
        }

        let center = NotificationCenter()
        let messageReceived = LockedCondition(0)
        let token = center.addObserver(for: BenchAsyncMessage.self) { _ in messageReceived.change { $0 += 1 } }
        let asyncMessage = roundTrip(received: messageReceived) {
            center.post(BenchAsyncMessage(event: BenchEvent(sequence: $0, value: 1)))
        }
        center.removeObserver(token)
        return (queued, sequence, asyncMessage)
    }

    /// ns per event when `send(i)` is followed by waiting until `received` counts it.
    private static func roundTrip(received: LockedCondition<Int>, send: (Int) -> Void) -> Double {
        var sent = received.withLock { $0 }
        return Measure.nanosecondsPerOperation(operations: roundTrips) { n in
            for i in 0..<n {
                send(i)
                sent += 1
                _ = received.wait(until: nil) { $0 >= sent }
            }
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
