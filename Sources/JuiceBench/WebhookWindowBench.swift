import Foundation
import JuiceJSON
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import Locking
import WebhookPlugin

/// `juice-bench webhook`, the window: a webhook subscriber against a loopback endpoint
/// that answers after a fixed 50 ms, as one across the internet would.
///
/// - Rate: a journal of `maxInFlight × 40` events delivered from scratch at
///   `maxInFlight` 1, 16 and 64, timed from attaching to caught up, beside the limit
///   `maxInFlight / 0.05 s` (targets: ≥ 80% of the limit at 16, ≥ 1,000 events/s at 64).
/// - Latency: orders committed at 200 events/s for 3 s with the default window (16);
///   commit (the event's `time`, to the millisecond) → the request's arrival, p50/p99.
/// - CPU: user + system time of the process per delivery, at 50 ms (each rate run) and
///   against an endpoint that answers at once (3,000 events with the default config,
///   and with `maxInFlight` 1, which sends one request at a time as every release
///   before did; medians of three).
///
/// Figures: `webhook_window_<n>_per_s`, `webhook_window_<n>_ratio`,
/// `webhook_window_<n>_cpu_us`, `webhook_commit_to_request_p50_ms`,
/// `webhook_commit_to_request_p99_ms`, `webhook_cpu_us_per_delivery_default`,
/// `webhook_cpu_us_per_delivery_window_1`.
enum WebhookWindowBench {
    static let latency = Duration.milliseconds(50)

    /// `JUICE_BENCH_WEBHOOK_CPU_ONLY=1` measures the CPU per delivery against the
    /// endpoint that answers at once and nothing else (to compare builds).
    static let cpuOnly = ProcessInfo.processInfo.environment["JUICE_BENCH_WEBHOOK_CPU_ONLY"] == "1"

    static func run(json: Bool) throws -> [(String, Double)] {
        if cpuOnly { return try cpuAtOnce(json: json) }
        let endpoint = try BenchEndpoint(latency: latency)
        defer { endpoint.stop() }
        var figures: [(String, Double)] = []
        if !json { print("webhook window: loopback endpoint answering after 50 ms") }
        for window in [1, 16, 64] {
            let (rate, cpu) = try deliveries(url: endpoint.url, window: window, events: window * 40)
            let limit = Double(window) / 0.05
            figures += [
                ("webhook_window_\(window)_per_s", rate), ("webhook_window_\(window)_ratio", rate / limit),
                ("webhook_window_\(window)_cpu_us", cpu),
            ]
            if !json {
                print(
                    "  \("maxInFlight \(window)".padding(toLength: 38, withPad: " ", startingAt: 0))\(Measure.format(rate, decimals: 0).leftPadded(to: 9)) events/s   limit \(Measure.format(limit, decimals: 0)), \(Measure.format(rate / limit * 100))% of it; \(Measure.format(cpu, decimals: 1)) µs CPU per delivery"
                )
            }
        }
        let (p50, p99) = try commitToRequest()
        figures += [("webhook_commit_to_request_p50_ms", p50), ("webhook_commit_to_request_p99_ms", p99)]
        if !json {
            print(
                "  \("commit → request, 200 events/s".padding(toLength: 38, withPad: " ", startingAt: 0))p50 \(Measure.format(p50, decimals: 1)) ms, p99 \(Measure.format(p99, decimals: 1)) ms (the endpoint's 50 ms not included)"
            )
        }
        return figures + (try cpuAtOnce(json: json))
    }

    /// CPU per delivery against an endpoint that answers at once: 3,000 events with the
    /// default config, then with `maxInFlight` 1; medians of three rounds each.
    static func cpuAtOnce(json: Bool) throws -> [(String, Double)] {
        let immediate = try BenchEndpoint()
        defer { immediate.stop() }
        var byDefault: [Double] = []
        var one: [Double] = []
        for _ in 0..<3 {
            byDefault.append(try deliveries(url: immediate.url, window: nil, events: 3_000).cpuMicroseconds)
            one.append(try deliveries(url: immediate.url, window: 1, events: 3_000).cpuMicroseconds)
        }
        let (cpuDefault, cpu1) = (Measure.median(byDefault), Measure.median(one))
        if !json {
            print(
                "  \("CPU per delivery, endpoint at once".padding(toLength: 38, withPad: " ", startingAt: 0))\(Measure.format(cpuDefault, decimals: 1)) µs by default, \(Measure.format(cpu1, decimals: 1)) µs at maxInFlight 1"
            )
        }
        return [("webhook_cpu_us_per_delivery_default", cpuDefault), ("webhook_cpu_us_per_delivery_window_1", cpu1)]
    }

    /// A signed webhook to `url`; `window` sets `maxInFlight` (nil: the default).
    private static func webhook(url: String, name: String, window: Int?) throws -> Delivered<Webhook> {
        var values: [JSONMember] = [
            JSONMember(key: "url", value: .string(url)), JSONMember(key: "secret", value: .string("whsec_YmVuY2g=")),
            JSONMember(key: "timeoutSeconds", value: .number(30)),
        ]
        if let window { values.append(JSONMember(key: "maxInFlight", value: .integer(window))) }
        return try Delivered(Webhook.self, configuration: PluginConfiguration(path: "bench", values: values), context: WebhookBench.context(name))
    }

    /// `events` delivered from scratch with `window` in flight: events per second, and
    /// microseconds of the process's CPU per delivery.
    static func deliveries(url: String, window: Int?, events: Int) throws -> (rate: Double, cpuMicroseconds: Double) {
        let store = InMemoryStore(initialStock: Stock(repeating: Stock.maximumQuantity))
        let maker = JuiceMaker(store: store)
        for _ in 0..<(events / 2) { try maker.make(.banana) }
        let total = try store.lastSequence()
        let plugin = try webhook(url: url, name: "bench-window", window: window)
        let cpu = WebhookBench.cpuSeconds()
        let start = ContinuousClock.now
        try plugin.attach(to: PluginHost(maker: maker, journal: store, reportError: { print("webhook bench: \($0.english)") }))
        let outcome = Measure.blocking { await plugin.delivery?.deliverPending() } ?? nil
        let elapsed = Measure.seconds(ContinuousClock.now - start)
        let used = WebhookBench.cpuSeconds() - cpu
        Measure.blocking { await plugin.shutdown(deadline: .now + .seconds(5)) }
        guard outcome == .caughtUp else {
            throw BenchError.unavailable("webhook window bench: delivery did not catch up (\(String(describing: outcome)))")
        }
        return (Double(total) / elapsed, used / Double(total) * 1e6)
    }

    /// Orders at 100 a second (200 events/s) for 3 s with the default window, against
    /// the 50 ms endpoint: commit → request p50 and p99, in milliseconds.
    static func commitToRequest() throws -> (p50: Double, p99: Double) {
        let endpoint = try BenchEndpoint(recordsArrivals: true, latency: latency)
        defer { endpoint.stop() }
        let store = InMemoryStore(initialStock: Stock(repeating: Stock.maximumQuantity))
        let maker = JuiceMaker(store: store)
        let plugin = try Delivered(
            Webhook.self,
            configuration: PluginConfiguration(
                path: "bench", values: [JSONMember(key: "url", value: .string(endpoint.url)), JSONMember(key: "timeoutSeconds", value: .number(30))]),
            context: WebhookBench.context("bench-latency"))
        try plugin.attach(to: PluginHost(maker: maker, journal: store, reportError: { print("webhook bench: \($0.english)") }))
        let start = ContinuousClock.now
        for order in 0..<300 {
            let due = start + .milliseconds(10 * order)
            let left = ContinuousClock.now.duration(to: due)
            // Pacing, not waiting: each order is made at its due time.
            if left > .zero { usleep(UInt32(TimeSpan(left).totalNanoseconds / 1_000)) }
            try maker.make(.banana)
        }
        _ = Measure.blocking { await plugin.delivery?.deliverPending() }
        Measure.blocking { await plugin.shutdown(deadline: .now + .seconds(5)) }
        let latencies = endpoint.arrivals.compactMap(\.latencyMilliseconds).sorted()
        guard latencies.count >= 600 else { throw BenchError.unavailable("webhook latency bench: \(latencies.count) of 600 requests came") }
        return (latencies[latencies.count / 2], latencies[Int(Double(latencies.count) * 0.99)])
    }
}
