import CSQLite
import Foundation
import JuiceMakerCore
import SQLiteStore

/// `juice-bench orders --store sqlite`: orders per second through `JuiceMaker` with the
/// SQLite store, against the same SQL in the same transaction shape done directly
/// through the C API (the raw baseline), measured in the same run, rounds interleaved.
enum SQLiteOrdersBench {
    /// Returns the JSON members for `"orders"` (e.g. `"sqlite_full_per_s":…`) after printing the table.
    static func run(durabilities: [String], checkEvery: Int64, json: Bool) throws -> [String: Double] {
        let directory = NSTemporaryDirectory() + "juice-bench-sqlite-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var figures: [String: Double] = [:]
        if !json {
            let check = checkEvery > 0 ? "background integrity check every \(checkEvery) events or more" : "no background integrity check"
            print("orders: SQLite store vs the same SQL through the C API (\(rounds) paired rounds, medians; \(check))")
        }
        for name in durabilities {
            guard let durability = Durability(rawValue: name) else {
                throw BenchError.usage("unknown durability \(name); use full or normal")
            }
            let maker = JuiceMaker(
                store: try SQLiteStore(
                    path: "\(directory)/maker-\(name).db", durability: durability, initialStock: full,
                    options: .init(checkEvery: checkEvery)))
            let raw = try RawOrders(path: "\(directory)/raw-\(name).db", durability: durability)
            let (makerRate, rawRate, ratio) = try measure(maker: maker, raw: raw)
            figures["sqlite_\(name)_per_s"] = Measure.median(makerRate.perSecond)
            figures["sqlite_\(name)_raw_per_s"] = Measure.median(rawRate.perSecond)
            if !json {
                func row(_ label: String, _ rate: Rate) -> String {
                    "    \(label.padding(toLength: 12, withPad: " ", startingAt: 0))"
                        + "\(Measure.format(Measure.median(rate.perSecond), decimals: 0).leftPadded(to: 8)) orders/s"
                        + "\(Measure.format(Measure.median(rate.cpuMicroseconds)).leftPadded(to: 9)) µs CPU/order"
                }
                print("  synchronous=\(name.uppercased())")
                print(row("JuiceMaker", makerRate))
                print(row("raw C API", rawRate))
                print("    ratio       \(Measure.format(100 * ratio).leftPadded(to: 8))% of raw (median of paired rounds)   target ≥ 90%")
            }
        }
        return figures
    }

    private static let rounds = 15
    private static let full = Stock(repeating: Stock.maximumQuantity)
    private static let juice = Juice.mangoKiwi

    /// One side's figures: orders per wall-clock second, CPU microseconds per order.
    struct Rate {
        var perSecond: [Double] = []
        var cpuMicroseconds: [Double] = []
    }

    /// Paired rounds of equal size, sized from a calibration run to take about a
    /// tenth of a second each. The disk and the other processes on the machine move
    /// both sides of a pair alike, so the ratio is the median of the pairs' ratios.
    private static func measure(maker: JuiceMaker, raw: RawOrders) throws -> (maker: Rate, raw: Rate, ratio: Double) {
        let probe = 20
        let calibration = try time { try orderThroughMaker(maker, count: probe) }.wall / Double(probe)
        _ = try time { try raw.order(juice, count: probe) }
        let count = max(20, min(50_000, Int(0.1 / max(calibration, 1e-7))))
        var makerRate = Rate()
        var rawRate = Rate()
        var ratios: [Double] = []
        func record(_ sample: (wall: Double, cpu: Double), into rate: inout Rate) -> Double {
            rate.perSecond.append(Double(count) / sample.wall)
            rate.cpuMicroseconds.append(sample.cpu * 1e6 / Double(count))
            return Double(count) / sample.wall
        }
        for round in 0..<rounds {
            // Alternate which goes first, so neither always pays the other's checkpoint.
            let rawFirst = round % 2 == 1
            var rawSample = (wall: 0.0, cpu: 0.0)
            if rawFirst { rawSample = try time { try raw.order(juice, count: count) } }
            let makerSample = try time { try orderThroughMaker(maker, count: count) }
            if !rawFirst { rawSample = try time { try raw.order(juice, count: count) } }
            ratios.append(record(makerSample, into: &makerRate) / record(rawSample, into: &rawRate))
        }
        return (makerRate, rawRate, Measure.median(ratios))
    }

    private static func orderThroughMaker(_ maker: JuiceMaker, count: Int) throws {
        for _ in 0..<count {
            guard case .made = try maker.make(juice) else {
                throw BenchError.unavailable("a full stock (it ran out of fruit)")
            }
        }
    }

    /// Wall-clock and CPU (user + system) seconds `body` took.
    private static func time(_ body: () throws -> Void) throws -> (wall: Double, cpu: Double) {
        let cpuStart = Measure.cpuSeconds()
        let start = ContinuousClock.now
        try body()
        let wall = Measure.seconds(.now - start)
        return (wall, Measure.cpuSeconds() - cpuStart)
    }
}
