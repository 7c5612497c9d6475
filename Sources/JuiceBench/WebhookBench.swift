import Foundation
import JuiceJSON
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking
import Synchronization
import WebhookPlugin

/// `juice-bench webhook`: deliveries per second to a loopback endpoint that answers
/// 200 at once, and orders per second with a webhook subscriber attached against
/// none (the order path must not pay for delivery: target ≥ 90%), and the CPU the
/// process uses while a delivery waits on an endpoint that accepted the connection
/// and never answers (target < 1% of a core).
///
/// Figures: `webhook_deliveries_per_s`, `webhook_orders_none_per_s`,
/// `webhook_orders_attached_per_s`, `webhook_orders_ratio`, `webhook_hung_cpu_percent`.
enum WebhookBench {
    static func run(json: Bool) throws -> [(String, Double)] {
        let endpoint = try BenchEndpoint()
        defer { endpoint.stop() }
        let deliveries = try deliveriesPerSecond(url: endpoint.url)
        let (none, attached, ratio) = try pairedOrdersPerSecond(url: endpoint.url)
        let hungCPU = try hungEndpointCPUPercent()
        let windowed = try WebhookWindowBench.run(json: json)
        if !json {
            print("webhook: loopback endpoint answering 200 at once (orders: \(pairedRounds) paired rounds, medians)")
            print(
                "  \("deliveries, one subscriber".padding(toLength: 38, withPad: " ", startingAt: 0))\(Measure.format(deliveries, decimals: 0).leftPadded(to: 9)) events/s"
            )
            print(
                "  \("orders, no webhook".padding(toLength: 38, withPad: " ", startingAt: 0))\(Measure.format(none, decimals: 0).leftPadded(to: 9)) orders/s"
            )
            print(
                "  \("orders, webhook attached".padding(toLength: 38, withPad: " ", startingAt: 0))\(Measure.format(attached, decimals: 0).leftPadded(to: 9)) orders/s   \(Measure.format(ratio * 100))% of none (median of paired rounds), target ≥ 90%"
            )
            print(
                "  \("CPU while waiting on a hung endpoint".padding(toLength: 38, withPad: " ", startingAt: 0))\(Measure.format(hungCPU, decimals: 2).leftPadded(to: 9))% of a core (user+sys / wall over \(Measure.format(Measure.seconds(hungWindow))) s), target < 1%"
            )
        }
        return [
            ("webhook_deliveries_per_s", deliveries), ("webhook_orders_none_per_s", none),
            ("webhook_orders_attached_per_s", attached), ("webhook_orders_ratio", ratio),
            ("webhook_hung_cpu_percent", hungCPU),
        ] + windowed
    }

    static let hungWindow = Duration.milliseconds(2_500)

    /// User + system time of the whole process (`getrusage(RUSAGE_SELF)`) over
    /// `hungWindow` of wall time while one delivery waits on an endpoint that accepted
    /// the connection, read the request and never answers (`timeoutSeconds` 30, so the
    /// wait is not cut short), in percent of one core.
    static func hungEndpointCPUPercent() throws -> Double {
        let endpoint = try BenchEndpoint(answers: false)
        defer { endpoint.stop() }
        let store = InMemoryStore(initialStock: Stock(repeating: Stock.maximumQuantity))
        let maker = JuiceMaker(store: store)
        let plugin = try Delivered(
            Webhook.self,
            configuration: PluginConfiguration(
                path: "bench",
                values: [
                    JSONMember(key: "url", value: .string(endpoint.url)), JSONMember(key: "timeoutSeconds", value: .number(30)),
                    JSONMember(key: "retrySchedule", value: .array([.number(60)])),
                ]),
            context: context("bench-hung"))
        try plugin.attach(to: PluginHost(maker: maker, journal: store, reportError: { _ in }))
        defer { Measure.blocking { await plugin.shutdown(deadline: .now + .seconds(2)) } }
        try maker.make(.banana)
        let arrived = ContinuousClock.now + .seconds(10)
        while endpoint.bytesReceived == 0 {
            guard ContinuousClock.now < arrived else { throw BenchError.unavailable("webhook bench: the request never reached the hung endpoint") }
            // Between looks at the endpoint's byte count, which signals nothing; bounded
            // by the deadline above.
            usleep(1_000)
        }
        usleep(200_000)  // the request is written; what follows is the wait alone
        let before = cpuSeconds()
        let started = ContinuousClock.now
        // Not polling: the window being measured (the process's CPU while the request hangs).
        usleep(UInt32(TimeSpan(hungWindow).totalNanoseconds / 1_000))
        let wall = Measure.seconds(ContinuousClock.now - started)
        return (cpuSeconds() - before) / wall * 100
    }

    /// User + system seconds of the whole process so far.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    static func context(_ name: String) -> PluginContext {
        let sink = FileSink(descriptor: 2, closesOnDeinit: false, onFailure: { _ in })
        return PluginContext(
            name: name, language: .english, colorAllowed: false, stateDirectory: "/tmp", environment: [:],
            standardOutput: sink, standardError: sink)
    }

    private static func webhook(url: String, name: String) throws -> Delivered<Webhook> {
        try Delivered(
            Webhook.self,
            configuration: PluginConfiguration(
                path: "bench", values: [JSONMember(key: "url", value: .string(url)), JSONMember(key: "secret", value: .string("whsec_YmVuY2g="))]),
            context: context(name))
    }

    /// A journal of 3,000 events delivered from scratch, timed from start to caught up.
    static func deliveriesPerSecond(url: String) throws -> Double {
        let store = InMemoryStore(initialStock: Stock(repeating: Stock.maximumQuantity))
        let maker = JuiceMaker(store: store)
        for _ in 0..<1_000 { try maker.make(.banana) }
        let events = try store.lastSequence()
        let plugin = try webhook(url: url, name: "bench-webhook")
        let start = DispatchTime.now().uptimeNanoseconds
        try plugin.attach(to: PluginHost(maker: maker, journal: store, reportError: { print("webhook bench: \($0.english)") }))
        let outcome = Measure.blocking { await plugin.delivery?.deliverPending() } ?? nil
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        Measure.blocking { await plugin.shutdown(deadline: .now + .seconds(5)) }
        guard outcome == .caughtUp else { throw BenchError.unavailable("webhook bench: delivery did not catch up (\(String(describing: outcome)))") }
        return Double(events) / elapsed
    }

    static let pairedRounds = 11

    /// Orders per second through `JuiceMaker` with the in-memory store, with no webhook
    /// and with one to `url` attached (delivering as it can), in alternating rounds
    /// (the order within a pair alternates too), so drift over the run falls on both
    /// sides of a pair alike. The ratio is the median of the pairs' ratios.
    static func pairedOrdersPerSecond(url: String) throws -> (none: Double, attached: Double, ratio: Double) {
        let plain = JuiceMaker(store: InMemoryStore(initialStock: Stock(repeating: Stock.maximumQuantity)))
        let store = InMemoryStore(initialStock: Stock(repeating: Stock.maximumQuantity))
        let observed = JuiceMaker(store: store)
        let plugin = try webhook(url: url, name: "bench-orders")
        try plugin.attach(to: PluginHost(maker: observed, journal: store, reportError: { _ in }))
        defer { Measure.blocking { await plugin.shutdown(deadline: .now + .seconds(2)) } }
        let operations = 100_000
        _ = try nanosecondsPerOrder(plain, operations / 10)
        _ = try nanosecondsPerOrder(observed, operations / 10)
        var none: [Double] = []
        var attached: [Double] = []
        var ratios: [Double] = []
        for round in 0..<pairedRounds {
            let (first, second) = round % 2 == 0 ? (plain, observed) : (observed, plain)
            let firstTime = try nanosecondsPerOrder(first, operations)
            let secondTime = try nanosecondsPerOrder(second, operations)
            let (plainTime, observedTime) = round % 2 == 0 ? (firstTime, secondTime) : (secondTime, firstTime)
            none.append(1e9 / plainTime)
            attached.append(1e9 / observedTime)
            ratios.append(plainTime / observedTime)
        }
        return (Measure.median(none), Measure.median(attached), Measure.median(ratios))
    }

    /// Nanoseconds per successful banana order over `count` orders.
    private static func nanosecondsPerOrder(_ maker: JuiceMaker, _ count: Int) throws(JuiceMakerError) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count {
            if case .insufficient = try maker.make(.banana) {
                try maker.set([.banana: Stock.maximumQuantity])
                try maker.make(.banana)
            }
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count)
    }
}

/// An HTTP/1.1 endpoint on 127.0.0.1 that answers every request `200` at once, or
/// `latency` after it arrived (keep-alive, `Content-Length` bodies), one thread per
/// connection; or, with
/// `answers: false`, one that reads requests and never answers. With
/// `recordsArrivals`, each request's body is read as a CloudEvent and its arrival kept
/// (`juice-bench cli`: commit → request).
final class BenchEndpoint: Sendable {
    /// One request that arrived: the event's journal position, how long after the
    /// event's `time` (its commit, to the millisecond) it came, and its `webhook-id`.
    struct Arrival: Sendable {
        let sequence: Int64?
        let latencyMilliseconds: Double?
        let webhookID: String?
    }

    private let listener: Int32
    private let port: UInt16
    private let answers: Bool
    private let running = Atomic<Bool>(true)
    private let received = Atomic<Int>(0)
    private let connections = Locked<[Int32]>([])
    private let recordsArrivals: Bool
    private let recorded = Locked<[Arrival]>([])
    /// How long after a request arrived its answer leaves.
    private let latency: Duration

    /// Every request recorded so far, in arrival order.
    var arrivals: [Arrival] { recorded.withLock { $0 } }

    /// Bytes read from every connection so far.
    var bytesReceived: Int { received.load(ordering: .relaxed) }

    var url: String { "http://127.0.0.1:\(port)/bench" }

    init(answers: Bool = true, recordsArrivals: Bool = false, latency: Duration = .zero) throws {
        self.answers = answers
        self.recordsArrivals = recordsArrivals
        self.latency = latency
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard fd >= 0, bound == 0, listen(fd, 64) == 0 else {
            throw BenchError.unavailable("webhook bench: cannot listen on 127.0.0.1")
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    func stop() {
        running.store(false, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        // Ends the blocked reads; each serving thread closes its own descriptor after
        // taking it out of the list, under the same lock, so none is shut down once reused.
        connections.withLock { connections in
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while running.load(ordering: .relaxed) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            connections.withLock { $0.append(connection) }
            Thread { [self] in answers ? serve(connection) : swallow(connection) }.start()
        }
    }

    /// Reads and discards until the peer or `stop` closes the connection; never writes.
    private func swallow(_ fd: Int32) {
        defer {
            connections.withLock { $0.removeAll { $0 == fd } }
            close(fd)
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while running.load(ordering: .relaxed) {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received.add(count, ordering: .relaxed)
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            connections.withLock { $0.removeAll { $0 == fd } }
            close(fd)
        }
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while running.load(ordering: .relaxed) {
            // One request: headers up to the blank line, then Content-Length bytes.
            guard let end = headerEnd(buffer) else {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                buffer += chunk[..<count]
                continue
            }
            let head = String(decoding: buffer[..<end], as: UTF8.self).lowercased()
            let length =
                head.range(of: "content-length:").flatMap { range in
                    Int(head[range.upperBound...].prefix { $0 != "\r" }.trimmingCharacters(in: .whitespaces))
                } ?? 0
            while buffer.count < end + 4 + length {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                buffer += chunk[..<count]
            }
            let arrived = ContinuousClock.now
            if recordsArrivals { record(Array(buffer[(end + 4)..<(end + 4 + length)]), head: String(decoding: buffer[..<end], as: UTF8.self)) }
            buffer.removeFirst(end + 4 + length)
            if latency > .zero {
                // An endpoint across the internet: the answer leaves `latency` after the request came.
                let left = ContinuousClock.now.duration(to: arrived + latency)
                if left > .zero { usleep(UInt32(TimeSpan(left).totalNanoseconds / 1_000)) }
            }
            _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    private func record(_ body: [UInt8], head: String) {
        let now = Date()
        let webhookID = head.split(separator: "\r\n").lazy.compactMap { line -> String? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "webhook-id" else { return nil }
            return parts[1].trimmingCharacters(in: .whitespaces)
        }.first
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        let sequence = (object?["sequence"] as? String).flatMap { Int64($0) }
        let time = (object?["time"] as? String).flatMap { RFC3339.parse($0) }
        let latency = time.map { now.timeIntervalSince($0) * 1000 }
        recorded.withLock { $0.append(Arrival(sequence: sequence, latencyMilliseconds: latency, webhookID: webhookID)) }
    }

    private func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
