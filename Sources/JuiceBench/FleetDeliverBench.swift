import Foundation
import JuiceMakerCore
import NATSClient
import SQLiteStore

/// `juice-bench fleet`, deliver: `juice fleet deliver` (a release `juice` process, the
/// one built beside the bench) feeding a webhook from the stream, against a loopback
/// endpoint that answers after 50 ms, as `juice-bench webhook` measures the webhook fed
/// from a local journal.
///
/// For `maxInFlight` 1, 16 and 64: a fresh stream holding `maxInFlight × 40` machine
/// events (the `nats` subscriber's subjects, bodies and message ids), a config with one
/// signed webhook (`maxInFlight` N) and a `fleet` section (`maxAckPending` 2 × N, so
/// the command fetches 2 × N messages at a time and the stream is a whole number of
/// fetches), and the process timed from spawn to exit, start-up included. Each run is checked: exit
/// status 0, one request per event, their `webhook-id`s the stream's event ids. An
/// empty run (a stream with no message) is timed the same way, for what a run costs
/// before and after its deliveries. Medians of `FleetBench.rounds` rounds.
///
/// Figures: `fleet_deliver_window_<n>_per_s`, `fleet_deliver_window_<n>_ratio` (of the
/// limit `maxInFlight / 0.05 s`), `fleet_deliver_empty_run_ms`.
enum FleetDeliverBench {
    static let windows = [1, 16, 64]

    static func run(server: BenchNATSServer, directory: String, json: Bool) throws -> [(String, Double)] {
        let juice = try CLIBench.juiceBinary()
        let home = directory + "/deliver"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let journal = home + "/journal.db"
        let written = try FleetBench.generate(at: journal, count: (windows.max() ?? 1) * 40)
        let envelopes = try SQLiteStore(path: journal, durability: .normal).events(after: 0, limit: written)
        // The deliverer's own store (retry state, dead letters) exists before any run, as on a machine.
        _ = try SQLiteStore(path: home + "/central.db", durability: .normal)
        let runner = Runner(juice: juice, home: home, url: server.url, server: server)

        var empty: [Double] = []
        var seconds: [Int: [Double]] = [:]
        var cpu: [Int: [Double]] = [:]
        for round in 0..<FleetBench.rounds {
            empty.append(try runner.deliver(window: 1, envelopes: [], stream: "DELIVER_EMPTY_\(round)").seconds)
            for window in windows {
                let run = try runner.deliver(window: window, envelopes: Array(envelopes.prefix(window * 40)), stream: "DELIVER_\(window)_\(round)")
                seconds[window, default: []].append(run.seconds)
                cpu[window, default: []].append(run.cpuSeconds)
            }
        }
        let emptySeconds = Measure.median(empty)
        if !json {
            print(
                "fleet deliver: juice fleet deliver, a stream of maxInFlight × 40 events → a webhook answering after 50 ms,"
                    + " whole process (start-up included), medians of \(FleetBench.rounds) rounds")
        }
        var figures: [(String, Double)] = []
        for window in windows {
            let events = Double(window * 40)
            let elapsed = Measure.median(seconds[window] ?? [])
            let rate = events / elapsed
            let limit = Double(window) / 0.05
            let net = events / (elapsed - emptySeconds)
            figures += [("fleet_deliver_window_\(window)_per_s", rate), ("fleet_deliver_window_\(window)_ratio", rate / limit)]
            if !json {
                let label = "maxInFlight \(window), start-up included".padding(toLength: 38, withPad: " ", startingAt: 0)
                print(
                    "  \(label)\(Measure.format(rate, decimals: 0).leftPadded(to: 9)) events/s   limit \(Measure.format(limit, decimals: 0)), "
                        + "\(Measure.format(rate / limit * 100))% of it; less the empty run \(Measure.format(net, decimals: 0)) events/s "
                        + "(\(Measure.format(net / limit * 100))%); \(Measure.format(Measure.median(cpu[window] ?? []) / events * 1e6, decimals: 0)) µs CPU per event"
                )
            }
        }
        if !json {
            print(
                "  \("empty run (a stream with nothing)".padding(toLength: 38, withPad: " ", startingAt: 0))"
                    + "\(Measure.format(emptySeconds * 1000, decimals: 0).leftPadded(to: 9)) ms   start-up, connecting, the fetch that finds nothing, exit"
            )
        }
        return figures + [("fleet_deliver_empty_run_ms", emptySeconds * 1000)]
    }

    /// Runs `juice fleet deliver` against streams of the bench's server.
    private struct Runner {
        let juice: String
        let home: String
        let url: String
        let server: BenchNATSServer

        /// Puts `envelopes` on a new `stream`, runs `juice fleet deliver` once with a webhook
        /// of `window` in flight, checks that every event came once, deletes the stream.
        func deliver(window: Int, envelopes: [EventEnvelope], stream: String) throws -> (seconds: Double, cpuSeconds: Double) {
            let prefix = stream.lowercased().replacingOccurrences(of: "_", with: "-")
            let connection = try NATSConnection(NATSOptions(servers: [url], reconnects: false, name: "juice-bench deliver"))
            defer { connection.close() }
            try connection.ensureStream(stream, subjects: "\(prefix).>", replicas: 1)
            if !envelopes.isEmpty { try RawPublisher.publish(FleetBench.messages(envelopes, prefix: prefix), url: url) }

            let endpoint = try BenchEndpoint(recordsArrivals: true, latency: WebhookWindowBench.latency)
            defer { endpoint.stop() }
            let config = home + "/\(stream).json"
            try Data(
                #"""
                {"machine": "central", "store": {"path": "\#(home)/central.db", "durability": "normal"},
                 "subscribers": [{"type": "webhook", "name": "hook", "url": "\#(endpoint.url)", "secret": "whsec_YmVuY2g=",
                                  "timeoutSeconds": 30, "maxInFlight": \#(window)}],
                 "fleet": {"url": "\#(url)", "stream": "\#(stream)", "subjectPrefix": "\#(prefix)", "maxAckPending": \#(2 * window)}}
                """#.utf8
            ).write(to: URL(fileURLWithPath: config))
            let environment = ["HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C", "NO_COLOR": "1"]
            let errors = home + "/\(stream).err"
            let run = try CLIBench.launchMeasured(juice, ["fleet", "deliver", "--config", config], environment, standardError: errors)
            guard run.status == 0 else {
                let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                throw BenchError.failed("fleet deliver bench: juice fleet deliver exited \(run.status) on \(stream): \(said)")
            }
            let ids = endpoint.arrivals.compactMap(\.webhookID)
            guard ids.count == envelopes.count, endpoint.arrivals.count == envelopes.count, Set(ids) == Set(envelopes.map(\.id.description)) else {
                throw BenchError.failed(
                    "fleet deliver bench: \(stream): \(endpoint.arrivals.count) requests, \(Set(ids).count) distinct webhook-ids, for \(envelopes.count) events"
                )
            }
            try server.checkAndDelete(stream: stream, expected: envelopes.count)
            return (run.seconds, run.cpuSeconds)
        }
    }
}
