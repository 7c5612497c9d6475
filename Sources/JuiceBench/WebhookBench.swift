import Foundation
import JuiceMakerCore
import Synchronization
import WebhookPlugin

/// `juice-bench webhook`: deliveries per second to a loopback endpoint that answers
/// 200 at once, and orders per second with a webhook subscriber attached against
/// none (the order path must not pay for delivery: target ≥ 90%).
///
/// Figures: `webhook_deliveries_per_s`, `webhook_orders_none_per_s`,
/// `webhook_orders_attached_per_s`, `webhook_orders_ratio`.
enum WebhookBench {
    static func run(json: Bool) throws -> [(String, Double)] {
        let endpoint = try BenchEndpoint()
        defer { endpoint.stop() }
        let deliveries = try deliveriesPerSecond(url: endpoint.url)
        let (none, attached, ratio) = try pairedOrdersPerSecond(url: endpoint.url)
        if !json {
            print("webhook: loopback endpoint answering 200 at once (orders: \(pairedRounds) paired rounds, medians)")
            print("  \("deliveries, one subscriber".padding(toLength: 38, withPad: " ", startingAt: 0))\(Measure.format(deliveries, decimals: 0).leftPadded(to: 9)) events/s")
            print("  \("orders, no webhook".padding(toLength: 38, withPad: " ", startingAt: 0))\(Measure.format(none, decimals: 0).leftPadded(to: 9)) orders/s")
            print("  \("orders, webhook attached".padding(toLength: 38, withPad: " ", startingAt: 0))\(Measure.format(attached, decimals: 0).leftPadded(to: 9)) orders/s   \(Measure.format(ratio * 100))% of none (median of paired rounds), target ≥ 90%")
        }
        return [
            ("webhook_deliveries_per_s", deliveries), ("webhook_orders_none_per_s", none),
            ("webhook_orders_attached_per_s", attached), ("webhook_orders_ratio", ratio),
        ]
    }

    private static func context(_ name: String) -> PluginContext {
        let sink = FileSink(descriptor: 2, closesOnDeinit: false, onFailure: { _ in })
        return PluginContext(
            name: name, language: .english, colorAllowed: false, stateDirectory: "/tmp", environment: [:],
            standardOutput: sink, standardError: sink)
    }

    private static func webhook(url: String, name: String) throws -> Webhook {
        try Webhook(
            configuration: PluginConfiguration(path: "bench", values: [("url", .string(url)), ("secret", .string("whsec_YmVuY2g="))]),
            context: context(name))
    }

    /// A journal of 3,000 events delivered from scratch, timed from start to caught up.
    static func deliveriesPerSecond(url: String) throws -> Double {
        let store = InMemoryStore(initialStock: Stock(repeating: Stock.maximumQuantity))
        let maker = JuiceMaker(store: store)
        for _ in 0..<1_000 { try maker.make(.banana) }
        let events = try store.lastSequence()
        let plugin = try webhook(url: url, name: "bench-webhook")
        let start = ContinuousClock.now
        try plugin.attach(to: PluginHost(maker: maker, journal: store, reportError: { print("webhook bench: \($0.english)") }))
        let outcome = Measure.blocking { await plugin.delivery?.deliverPending() } ?? nil
        let elapsed = Measure.seconds(.now - start)
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

/// An HTTP/1.1 endpoint on 127.0.0.1 that answers every request `200` at once
/// (keep-alive, `Content-Length` bodies), one thread per connection.
private final class BenchEndpoint: Sendable {
    private let listener: Int32
    private let port: UInt16
    private let running = Atomic<Bool>(true)

    var url: String { "http://127.0.0.1:\(port)/bench" }

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
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
    }

    private func acceptLoop() {
        while running.load(ordering: .relaxed) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        #if canImport(Darwin)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
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
            let length = head.range(of: "content-length:").flatMap { range in
                Int(head[range.upperBound...].prefix { $0 != "\r" }.trimmingCharacters(in: .whitespaces))
            } ?? 0
            while buffer.count < end + 4 + length {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                buffer += chunk[..<count]
            }
            buffer.removeFirst(end + 4 + length)
            _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Self.sendFlags) }
        }
    }

    /// No SIGPIPE when the client has gone: a flag on Linux, `SO_NOSIGPIPE` (set in
    /// `serve`) on Darwin.
    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    private func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
