import Foundation
import JuiceCLI
import JuiceMakerCore
import JuiceMakerTesting

/// `juice-bench json`: seconds the config's JSON reader takes for the inputs that used
/// to be quadratic (40,000 keys in one object, 1,000,000 `\n` escapes) and for 10 MB of
/// plain text in one string. Median of 5 rounds each. Target: each ≤ 0.3 s.
///
/// Also what reading one journal row's event costs: `CloudEventFormat.decode` (the fast
/// reader) over 1,000 events as `encode` writes them (two in three `stockChanged`, one
/// `juiceMade`), 200 passes, against the same texts read without the fast reader (the
/// core's `JSONParser`, what an event the fast reader leaves costs) and by `JSONDecoder`
/// (the tests' reference), in the same run. Median of 5 rounds, nanoseconds an event.
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
        let (fast, parser, decoder) = decodeNanoseconds()
        if !json {
            print("json reader (median of 5; target ≤ 0.3 s each)")
            for (name, seconds) in results {
                print("  \(name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(Measure.format(seconds, decimals: 3))")
            }
            print(
                "  CloudEvents decode, ns an event: \(Measure.format(fast, decimals: 0)); "
                    + "without the fast reader: \(Measure.format(parser, decimals: 0)); "
                    + "JSONDecoder, same texts: \(Measure.format(decoder, decimals: 0))")
        }
        return results + [("cloudevent_decode_ns", fast), ("cloudevent_parser_ns", parser), ("cloudevent_jsondecoder_ns", decoder)]
    }

    /// Nanoseconds an event: the fast reader, then `JSONParser` and `JSONDecoder` (5
    /// passes each; they are slower).
    private static func decodeNanoseconds() -> (fast: Double, parser: Double, decoder: Double) {
        var ids = EventIDGenerator()
        let milliseconds: UInt64 = 1_700_000_000_000
        let time = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        let texts: [String] = (0..<1_000).map { index in
            let juice = Juice.allCases[index % Juice.allCases.count]
            let event: JuiceMakerEvent =
                index % 3 == 0
                ? .juiceMade(juice: juice, count: 1, consumed: juice.recipe)
                : .stockChanged(fruit: Fruit.allCases[index % Fruit.allCases.count], from: 40, to: 38, reason: .order)
            return CloudEventFormat.encode(
                EventEnvelope(
                    sequence: Int64(index + 1), id: ids.next(unixMilliseconds: milliseconds), time: time, source: "/juice-maker/bench",
                    changeID: ids.next(unixMilliseconds: milliseconds), event: event))
        }
        let bytes = texts.map { Array($0.utf8) }
        func timed(passes: Int, _ decode: (Int) -> Bool) -> Double {
            var samples: [Double] = []
            for _ in 0..<5 {
                var decoded = 0
                let start = ContinuousClock.now
                for _ in 0..<passes {
                    for index in texts.indices where decode(index) { decoded += 1 }
                }
                samples.append(Measure.seconds(.now - start) / Double(max(decoded, 1)) * 1e9)
            }
            return Measure.median(samples)
        }
        let fast = timed(passes: 200) { index in bytes[index].withUnsafeBufferPointer { (try? CloudEventFormat.decode(utf8: $0)) != nil } }
        let parser = timed(passes: 5) { index in (try? CloudEventFormat.decodeWithoutFastReader(texts[index])) != nil }
        let decoder = timed(passes: 5) { index in (try? CloudEventFormat.decodeWithJSONDecoder(texts[index])) != nil }
        return (fast, parser, decoder)
    }
}
