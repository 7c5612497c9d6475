import Foundation

/// `juice-bench config`: the wall time of one `juice config check` process for a config
/// of 1 subscriber (the baseline: starting the process) and of 8,000 and 16,000 named
/// subscribers (loggers to stderr and notifiers), median of 5 runs each. Checking must
/// be linear in the subscribers (name and per-type ordinal checks that scan every
/// earlier subscriber are quadratic): target ≤ 0.2 s for 8,000, and 16,000 about twice
/// 8,000's time above the baseline.
enum ConfigBench {
    static let runs = 5

    static func run(json: Bool) throws -> [(String, Double)] {
        let juice = try CLIBench.juiceBinary()
        let directory = try BenchDirectory.make("config")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["HOME": directory, "PATH": "/usr/bin:/bin", "LANG": "en_US.UTF-8"]
        var results: [(String, Double)] = []
        for count in [1, 8_000, 16_000] {
            let config = directory + "/subscribers-\(count).json"
            try Data(text(subscribers: count).utf8).write(to: URL(fileURLWithPath: config))
            var samples: [Double] = []
            for _ in 0..<runs {
                samples.append(
                    try CLIBench.check(
                        CLIBench.launch(juice, ["config", "check", "--quiet", "--config", config, "--in-memory"], environment),
                        "juice config check (\(count))"))
            }
            results.append(("config check, \(count) subscribers (s)", Measure.median(samples)))
        }
        if !json {
            print("config: one `juice config check` process, median of \(runs) (target ≤ 0.2 s for 8000)")
            for (name, seconds) in results {
                print("  \(name.padding(toLength: 40, withPad: " ", startingAt: 0)) \(Measure.format(seconds, decimals: 3))")
            }
        }
        return results
    }

    /// A config of `count` subscribers, every one named, half loggers, half notifiers.
    static func text(subscribers count: Int) -> String {
        let entries = (0..<count).map { index in
            index.isMultiple(of: 2)
                ? #"{"type": "logger", "name": "log-\#(index)", "path": "stderr", "events": ["orderFailed"]}"#
                : #"{"type": "cli-notifier", "name": "notify-\#(index)", "enabled": false}"#
        }
        return #"{"subscribers": [\#(entries.joined(separator: ",\n"))]}"#
    }
}
