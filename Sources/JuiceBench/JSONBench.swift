import Foundation
import JuiceCLI

/// `juice-bench json`: seconds the config's JSON reader takes for the inputs that used
/// to be quadratic (40,000 keys in one object, 1,000,000 `\n` escapes) and for 10 MB of
/// plain text in one string. Median of 5 rounds each. Target: each ≤ 0.3 s.
enum JSONBench {
    static func run(json: Bool) throws -> [(String, Double)] {
        let inputs: [(String, String)] = [
            ("40000 keys (s)", "{" + (0..<40_000).map { "\"key\($0)\": \($0)" }.joined(separator: ",") + "}"),
            ("1000000 escapes (s)", "\"" + String(repeating: "\\n", count: 1_000_000) + "\""),
            ("10 MB text (s)", "\"" + String(repeating: "strawberry", count: 1_000_000) + "\""),
        ]
        var results: [(String, Double)] = []
        for (name, text) in inputs {
            var samples: [Double] = []
            for _ in 0..<5 {
                let start = ContinuousClock.now
                _ = try JSONReader.parse(text)
                samples.append(Measure.seconds(.now - start))
            }
            results.append((name, Measure.median(samples)))
        }
        if !json {
            print("json reader (median of 5; target ≤ 0.3 s each)")
            for (name, seconds) in results {
                print("  \(name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(Measure.format(seconds, decimals: 3))")
            }
        }
        return results
    }
}
