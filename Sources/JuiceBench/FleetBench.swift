import CNATSLoader
import FleetConfiguration
import Foundation
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking
import NATSClient
import NATSPlugin
import SQLiteStore
import Spawning

/// `juice-bench fleet`: the fleet's publisher against the NATS C client, in one run,
/// on a `nats-server -js` this bench starts on loopback (temporary store directory,
/// stream R1, file storage) and stops.
///
/// - Rate: a 100,000-event SQLite journal published by the `nats` durable subscriber
///   (`NATSPublisher` with its `DurableDelivery` runner, as `juice deliver` runs it),
///   timed from attaching until caught up (cursor at the last event), against a Swift
///   loop straight over libnats' calls (`natsMsg_Create`, the `content-type` header,
///   `js_PublishMsgAsync` with `MsgId`, then `js_PublishAsyncComplete`) publishing the
///   same bodies to the same subjects with the same `Nats-Msg-Id`s, the same 256
///   PubAcks outstanding (bodies encoded before the clock starts). Both include
///   connecting and checking the stream. Each round gets fresh streams (so no
///   duplicate window), rounds alternate; medians. Targets: ≥ 80% of the loop, and
///   ≥ 20,000 events/s.
/// - Latency: `juice deliver --follow` (a `nats` subscriber) and `juice fleet watch
///   --json` run as processes; this process commits orders to the same store and
///   times from the commit returning until the watcher printed the order's last
///   event. Commits are spaced by a random pause. Target: p50 ≤ 20 ms.
/// - Delivery: `juice fleet deliver` feeding a webhook at `maxInFlight` 1, 16 and 64
///   from the stream, against an endpoint answering after 50 ms (`FleetDeliverBench`).
///
/// Figures: `fleet_publish_per_s`, `fleet_c_loop_per_s`, `fleet_publish_ratio`,
/// `fleet_latency_p50_ms`, `fleet_latency_p99_ms`, then `FleetDeliverBench`'s.
enum FleetBench {
    /// `JUICE_BENCH_FLEET_EVENTS` and `JUICE_BENCH_FLEET_ROUNDS` make a smaller run,
    /// and `JUICE_BENCH_FLEET_LATENCY=0` leaves the latency out (under `valgrind
    /// --tool=callgrind`, say); the figures are for the defaults.
    static let events = setting("JUICE_BENCH_FLEET_EVENTS") ?? 100_000
    static let rounds = setting("JUICE_BENCH_FLEET_ROUNDS") ?? 3
    static let commits = 200

    private static func setting(_ name: String) -> Int? {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    static func run(json: Bool) throws -> [(String, Double)] {
        let directory = try BenchDirectory.make("fleet")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try BenchNATSServer(directory: directory)
        defer { server.stop() }

        let storePath = directory + "/journal.db"
        let written = try generate(at: storePath, count: events)
        let store = try SQLiteStore(path: storePath, durability: .normal)
        let envelopes = try store.events(after: 0, limit: written)
        let prefixOf: (String) -> String = { "bench.\($0)" }
        var publisherRates: [Double] = []
        var loopRates: [Double] = []
        var ratios: [Double] = []
        // CPU microseconds per event, this process and the server, by side.
        var cpu: [String: (own: [Double], server: [Double])] = ["juice": ([], []), "loop": ([], [])]
        for round in 0..<rounds {
            // The order within a pair alternates, so drift falls on both sides alike.
            var pair: [String: Double] = [:]
            for side in round % 2 == 0 ? ["juice", "loop"] : ["loop", "juice"] {
                let stream = "BENCH_\(side.uppercased())_\(round)"
                let prefix = prefixOf("\(side)\(round)")
                let timed: Timed
                if side == "juice" {
                    timed = try publisherRate(store: store, server: server, stream: stream, prefix: prefix, round: round, count: written)
                } else {
                    timed = try loopRate(envelopes, server: server, stream: stream, prefix: prefix)
                }
                pair[side] = timed.rate
                cpu[side]?.own.append(timed.cpu / Double(written) * 1e6)
                cpu[side]?.server.append(timed.serverCPU / Double(written) * 1e6)
                try server.checkAndDelete(stream: stream, expected: written)
            }
            let juice = pair["juice"] ?? .nan
            let loop = pair["loop"] ?? .nan
            publisherRates.append(juice)
            loopRates.append(loop)
            ratios.append(juice / loop)
        }
        let rate = Measure.median(publisherRates)
        let loop = Measure.median(loopRates)
        let ratio = Measure.median(ratios) * 100

        // `JUICE_BENCH_FLEET_LATENCY=0`: the rate only.
        let latencies =
            ProcessInfo.processInfo.environment["JUICE_BENCH_FLEET_LATENCY"] == "0"
            ? [] : try watchLatencies(directory: directory, url: server.url)
        let p50 = percentile(latencies, 0.50) * 1000
        let p99 = percentile(latencies, 0.99) * 1000
        if !json {
            let label = { (text: String) in "  " + text.padding(toLength: 50, withPad: " ", startingAt: 0) }
            print("fleet: \(written) journal events → local JetStream (R1, file storage), medians of \(rounds) alternating rounds")
            print(
                label("nats subscriber (journal → PubAck → cursor)") + Measure.format(rate, decimals: 0).leftPadded(to: 10)
                    + " events/s   target ≥ 20,000")
            print(label("libnats async-publish loop, same bodies") + Measure.format(loop, decimals: 0).leftPadded(to: 10) + " events/s")
            print(label("ratio (median of the rounds' ratios)") + Measure.format(ratio, decimals: 1).leftPadded(to: 10) + " %          target ≥ 80%")
            print(label("rounds, juice / loop") + zip(publisherRates, loopRates).map { "\(Int($0)) / \(Int($1))" }.joined(separator: ", "))
            for side in ["juice", "loop"] {
                let own = Measure.median(cpu[side]?.own ?? [])
                let server = Measure.median(cpu[side]?.server ?? [])
                print(
                    label("CPU per event, \(side == "juice" ? "nats subscriber" : "libnats loop") / nats-server")
                        + Measure.format(own, decimals: 2).leftPadded(to: 10) + " / " + Measure.format(server, decimals: 2) + " µs")
            }
            print(
                label("commit → fleet watch, p50 (\(latencies.count) orders)") + Measure.format(p50, decimals: 2).leftPadded(to: 10)
                    + " ms          target ≤ 20 ms")
            print(label("commit → fleet watch, p99") + Measure.format(p99, decimals: 2).leftPadded(to: 10) + " ms")
        }
        let delivery = try FleetDeliverBench.run(server: server, directory: directory, json: json)
        return [
            ("fleet_publish_per_s", rate), ("fleet_c_loop_per_s", loop), ("fleet_publish_ratio", ratio),
            ("fleet_latency_p50_ms", p50), ("fleet_latency_p99_ms", p99),
        ] + delivery
    }

    static let machine = "bench"

    /// A journal of `events` events (orders and restocks, as the maker writes them) from
    /// machine `bench`, committed 5,000 at a time.
    static func generate(at path: String, count events: Int) throws -> Int {
        let store = try SQLiteStore(path: path, durability: .normal, initialStock: Stock(repeating: 50))
        var ids = EventIDGenerator()
        var written = 0
        var round = 0
        let source = Fleet.source(machine: machine)
        while written < events {
            let change = try store.commit { current, position in
                var stock = current
                var batch: [EventEnvelope] = []
                var sequence = position.nextSequence
                let now = Date()
                let milliseconds = UInt64(now.timeIntervalSince1970 * 1000)
                while batch.count < min(5_000, events - written) {
                    round += 1
                    let changeID = ids.next(unixMilliseconds: milliseconds, after: batch.last?.id ?? position.lastEventID)
                    func append(_ event: JuiceMakerEvent) {
                        batch.append(
                            EventEnvelope(
                                sequence: sequence, id: ids.next(unixMilliseconds: milliseconds), time: now, source: source,
                                changeID: changeID, event: event))
                        sequence += 1
                    }
                    let juice = Juice.allCases[round % Juice.allCases.count]
                    guard SimulatedOrder.shortages(of: juice, in: stock).isZero else {
                        for fruit in Fruit.allCases where stock[fruit] < 20 {
                            let before = stock[fruit]
                            stock[fruit] += 60
                            append(.stockChanged(fruit: fruit, from: before, to: stock[fruit], reason: .restock))
                        }
                        continue
                    }
                    SimulatedOrder.make(juice, from: &stock).forEach(append)
                }
                return StoreChange(stock: stock, events: Array(batch.prefix(events - written)))
            }
            written += change.events.count
        }
        return written
    }

    private static func context(_ name: String) -> PluginContext {
        let sink = FileSink(descriptor: 2, closesOnDeinit: false, onFailure: { _ in })
        return PluginContext(
            name: name, language: .english, colorAllowed: false, stateDirectory: "/tmp", environment: [:],
            standardOutput: sink, standardError: sink)
    }

    /// A side's rate, and the CPU seconds this process and the server used meanwhile.
    private struct Timed {
        var rate: Double
        var cpu: Double
        var serverCPU: Double
    }

    /// Times `body` (it returns how many events it published).
    private static func timed(_ server: BenchNATSServer, _ body: () throws -> Int) rethrows -> Timed {
        let (cpu, serverCPU) = (Measure.cpuSeconds(), server.cpuSeconds() ?? .nan)
        let start = ContinuousClock.now
        let count = try body()
        let elapsed = Measure.seconds(ContinuousClock.now - start)
        return Timed(rate: Double(count) / elapsed, cpu: Measure.cpuSeconds() - cpu, serverCPU: (server.cpuSeconds() ?? .nan) - serverCPU)
    }

    /// Events per second the `nats` subscriber publishes the journal at, from attaching
    /// (connecting, checking the stream) until its cursor is at the last event.
    private static func publisherRate(
        store: SQLiteStore, server: BenchNATSServer, stream: String, prefix: String, round: Int, count: Int
    ) throws -> Timed {
        let url = server.url
        let name = "bench-nats-\(round)"
        let plugin = try Delivered(
            NATSPublisher.self,
            configuration: PluginConfiguration(
                path: "bench",
                values: [
                    JSONMember(key: "url", value: .string(url)), JSONMember(key: "stream", value: .string(stream)),
                    JSONMember(key: "subjectPrefix", value: .string(prefix)),
                ]),
            context: context(name))
        let maker = JuiceMaker(store: store, source: Fleet.source(machine: machine))
        var outcome: DeliveryPhase?
        let result = try timed(server) {
            try plugin.attach(to: PluginHost(maker: maker, journal: store, reportError: { print("fleet bench: \($0.english)") }))
            outcome = Measure.blocking { await plugin.delivery?.deliverPending() } ?? nil
            return count
        }
        Measure.blocking { await plugin.shutdown(deadline: .now + .seconds(5)) }
        guard outcome == .caughtUp, try store.cursor(named: name) == Int64(count) else {
            throw BenchError.failed("fleet bench: the nats subscriber did not catch up (\(String(describing: outcome)))")
        }
        return result
    }

    /// Events per second of a loop straight over libnats: the same bodies, subjects,
    /// `content-type` and `Nats-Msg-Id`, 256 PubAcks outstanding, until all are acked.
    private static func loopRate(_ envelopes: [EventEnvelope], server: BenchNATSServer, stream: String, prefix: String) throws -> Timed {
        let url = server.url
        let messages = Self.messages(envelopes, prefix: prefix)
        var connection: NATSConnection?
        defer { connection?.close() }
        return try timed(server) {
            let made = try NATSConnection(NATSOptions(servers: [url], reconnects: false, name: "juice-bench loop"))
            connection = made
            try made.ensureStream(stream, subjects: "\(prefix).>", replicas: 1)
            try RawPublisher.publish(messages, url: url)
            return messages.count
        }
    }

    /// The messages the `nats` subscriber publishes for `envelopes` under `prefix`: each
    /// event's subject, its CloudEvent body and its id (the `Nats-Msg-Id`).
    static func messages(_ envelopes: [EventEnvelope], prefix: String) -> [(subject: String, body: [UInt8], id: String)] {
        envelopes.map { envelope in
            (
                subject: Fleet.subject(prefix: prefix, machine: machine, event: envelope.event),
                body: Array(CloudEventFormat.encode(envelope).utf8), id: envelope.id.description
            )
        }
    }

    // MARK: Latency

    /// Seconds from each order's commit until `juice fleet watch --json` printed its
    /// last event, with `juice deliver --follow` publishing.
    private static func watchLatencies(directory: String, url: String) throws -> [Double] {
        let juice = try CLIBench.juiceBinary()
        let home = directory + "/latency"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let storePath = home + "/juice.db"
        let config = home + "/config.json"
        let reader = #"{"url": "\#(url)", "stream": "LATENCY", "subjectPrefix": "lat"}"#
        try Data(
            #"""
            {"machine": "\#(machine)", "initialStock": 100000, "store": {"path": "\#(storePath)", "durability": "normal"},
             "subscribers": [{"type": "nats", "url": "\#(url)", "stream": "LATENCY", "subjectPrefix": "lat"}],
             "fleet": \#(reader)}
            """#.utf8
        ).write(to: URL(fileURLWithPath: config))
        let store = try SQLiteStore(path: storePath, durability: .normal, initialStock: Stock(repeating: 100_000))
        let maker = JuiceMaker(store: store, source: Fleet.source(machine: machine))
        // One order first, so the stream exists before the watcher looks for it.
        try maker.make(.banana)
        let environment = ["HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C", "NO_COLOR": "1"]
        let deliverer = try ChildProcess.start(juice, ["deliver", "--follow", "--config", config], environment, stdout: home + "/deliver.out")
        defer { deliverer.stop() }
        let seen = LockedCondition<[String: ContinuousClock.Instant]>([:])
        let streamDeadline = ContinuousClock.now + .seconds(10)
        while (try? NATSConnection(NATSOptions(servers: [url], reconnects: false)).streamMessageCount("LATENCY")) ?? 0 == 0 {
            guard ContinuousClock.now < streamDeadline else {
                throw BenchError.failed("fleet bench: juice deliver --follow published nothing in 10 s")
            }
            // Between looks at the stream on the server: it sends no signal when the first
            // message lands; bounded by the deadline above.
            usleep(20_000)
        }
        let watcher = try ChildProcess.start(juice, ["fleet", "watch", "--json", "--config", config], environment, stdout: nil) { line in
            guard let envelope = try? CloudEventFormat.decode(line) else { return }
            let now = ContinuousClock.now
            seen.change { $0[envelope.id.description] = now }
        }
        defer { watcher.stop() }
        usleep(500_000)  // the watcher subscribes (new events only)
        var latencies: [Double] = []
        var generator = SystemRandomNumberGenerator()
        for round in 0..<commits {
            // Pacing, not waiting: the next commit lands at a random moment.
            usleep(UInt32.random(in: 2_000...40_000, using: &generator))
            let before = try store.lastSequence()
            let started = ContinuousClock.now
            try maker.make(Juice.allCases[round % Juice.allCases.count])
            guard let last = try store.events(after: before, limit: 100).last?.id.description else { continue }
            guard seen.wait(until: .now + .seconds(10), for: { $0[last] != nil }) else {
                throw BenchError.failed("fleet bench: order \(round) did not reach juice fleet watch within 10 s")
            }
            latencies.append(Measure.seconds(seen.withLock { $0[last]! } - started))
        }
        return latencies
    }

    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }
}

/// The baseline: libnats' own asynchronous JetStream publishing, no juice in between.
enum RawPublisher {
    static func publish(_ messages: [(subject: String, body: [UInt8], id: String)], url: String) throws {
        // libnats' calls through the loader's table, as juice makes them: one load, then
        // a call through a function pointer each.
        if let failure = juice_nats_load() { throw BenchError.unavailable(String(cString: failure)) }
        let c = juice_nats().pointee
        var options: OpaquePointer?
        guard c.natsOptions_Create(&options) == NATS_OK, let options else { throw BenchError.unavailable("natsOptions_Create") }
        defer { c.natsOptions_Destroy(options) }
        _ = c.natsOptions_SetURL(options, url)
        var connection: OpaquePointer?
        guard c.natsConnection_Connect(&connection, options) == NATS_OK, let connection else {
            throw BenchError.failed("fleet bench: libnats could not connect to \(url)")
        }
        defer { c.natsConnection_Destroy(connection) }
        var jsOptions = jsOptions()
        _ = c.jsOptions_Init(&jsOptions)
        jsOptions.Wait = 5_000
        jsOptions.PublishAsync.MaxPending = 256
        jsOptions.PublishAsync.StallWait = 5_000
        var context: OpaquePointer?
        guard c.natsConnection_JetStream(&context, connection, &jsOptions) == NATS_OK, let context else {
            throw BenchError.failed("fleet bench: natsConnection_JetStream")
        }
        defer { c.jsCtx_Destroy(context) }
        for message in messages {
            var created: OpaquePointer?
            let status = message.body.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { body in
                    c.natsMsg_Create(&created, message.subject, nil, body, Int32(buffer.count))
                }
            }
            guard status == NATS_OK, let created else { throw BenchError.failed("fleet bench: natsMsg_Create") }
            _ = c.natsMsgHeader_Set(created, "content-type", CloudEventFormat.contentType)
            var pubOptions = jsPubOptions()
            _ = c.jsPubOptions_Init(&pubOptions)
            var pointer: OpaquePointer? = created
            let published = message.id.withCString { id in
                pubOptions.MsgId = id
                return c.js_PublishMsgAsync(context, &pointer, &pubOptions)
            }
            if let left = pointer { c.natsMsg_Destroy(left) }
            guard published == NATS_OK else { throw BenchError.failed("fleet bench: js_PublishMsgAsync: \(published)") }
        }
        var completeOptions = jsPubOptions()
        _ = c.jsPubOptions_Init(&completeOptions)
        completeOptions.MaxWait = 30_000
        let completed = c.js_PublishAsyncComplete(context, &completeOptions)
        guard completed == NATS_OK else { throw BenchError.failed("fleet bench: js_PublishAsyncComplete: \(completed)") }
    }
}
import JuiceJSON
