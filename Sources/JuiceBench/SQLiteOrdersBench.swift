import CSQLite
import Foundation
import JuiceMakerCore
import SQLiteStore

/// `juice-bench orders --store sqlite`: orders per second through `JuiceMaker` with the
/// SQLite store, against the same SQL in the same transaction shape done directly
/// through the C API (the raw baseline), measured in the same run, rounds interleaved.
enum SQLiteOrdersBench {
    /// Returns the JSON members for `"orders"` (e.g. `"sqlite_full_per_s":…`) after printing the table.
    static func run(durabilities: [String], json: Bool) throws -> [String: Double] {
        let directory = NSTemporaryDirectory() + "juice-bench-sqlite-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var figures: [String: Double] = [:]
        if !json { print("orders: SQLite store vs the same SQL through the C API (median of \(rounds) interleaved rounds)") }
        for name in durabilities {
            guard let durability = Durability(rawValue: name) else {
                throw BenchError.usage("unknown durability \(name); use full or normal")
            }
            let maker = JuiceMaker(store: try SQLiteStore(
                path: "\(directory)/maker-\(name).db", durability: durability, initialStock: full))
            let raw = try RawOrders(path: "\(directory)/raw-\(name).db", durability: durability)
            let (makerRate, rawRate) = try measure(maker: maker, raw: raw)
            figures["sqlite_\(name)_per_s"] = makerRate
            figures["sqlite_\(name)_raw_per_s"] = rawRate
            if !json {
                let ratio = Measure.format(100 * makerRate / rawRate)
                print("  synchronous=\(name.uppercased())".padding(toLength: 26, withPad: " ", startingAt: 0)
                    + "JuiceMaker \(Measure.format(makerRate, decimals: 0).leftPadded(to: 8)) orders/s"
                    + "   raw C \(Measure.format(rawRate, decimals: 0).leftPadded(to: 8)) orders/s"
                    + "   \(ratio)% of raw   target ≥ 90%")
            }
        }
        return figures
    }

    private static let rounds = 7
    private static let full = Stock(repeating: Stock.maximumQuantity)
    private static let juice = Juice.mangoKiwi

    /// Orders per second of each, the median of interleaved rounds of equal size,
    /// sized from a calibration run to take about a quarter second each.
    private static func measure(maker: JuiceMaker, raw: RawOrders) throws -> (Double, Double) {
        let probe = 20
        let calibration = try seconds { try orderThroughMaker(maker, count: probe) } / Double(probe)
        _ = try seconds { try raw.order(juice, count: probe) }
        let count = max(20, min(50_000, Int(0.25 / max(calibration, 1e-7))))
        var makerRates: [Double] = []
        var rawRates: [Double] = []
        for _ in 0..<rounds {
            makerRates.append(Double(count) / (try seconds { try orderThroughMaker(maker, count: count) }))
            rawRates.append(Double(count) / (try seconds { try raw.order(juice, count: count) }))
        }
        return (Measure.median(makerRates), Measure.median(rawRates))
    }

    private static func orderThroughMaker(_ maker: JuiceMaker, count: Int) throws {
        for _ in 0..<count {
            guard case .made = try maker.make(juice) else {
                throw BenchError.unavailable("a full stock (it ran out of fruit)")
            }
        }
    }

    private static func seconds(_ body: () throws -> Void) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
