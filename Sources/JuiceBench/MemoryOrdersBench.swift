import Foundation
import JuiceMakerCore

/// `juice-bench orders --store memory`: orders per second through `JuiceMaker` with
/// the in-memory store and two synchronous subscribers attached.
enum MemoryOrdersBench {
    static func run(json: Bool) throws -> [(String, Double)] {
        let perSecond = try ordersPerSecond()
        if !json {
            print("orders: in-memory store, 2 synchronous subscribers (median of 7 rounds)")
            print("  \("JuiceMaker.make(.banana)".padding(toLength: 38, withPad: " ", startingAt: 0))\(Measure.format(perSecond, decimals: 0).leftPadded(to: 9)) orders/s   target ≥ 1,000,000")
        }
        return [("memory_per_s", perSecond)]
    }

    static func ordersPerSecond() throws -> Double {
        let maker = JuiceMaker(store: InMemoryStore(initialStock: Stock(repeating: Stock.maximumQuantity)))
        let juices = Tally()
        let changes = Tally()
        _ = try maker.subscribe("bench-made", kinds: [.juiceMade]) { _ in juices.add(1) }
        _ = try maker.subscribe("bench-stock", kinds: [.stockChanged]) { _ in changes.add(1) }
        var failure: JuiceMakerError?
        let nanoseconds = Measure.nanosecondsPerOperation(operations: 200_000) { n in
            do throws(JuiceMakerError) {
                for _ in 0..<n {
                    if case .insufficient = try maker.make(.banana) {
                        try maker.set([.banana: Stock.maximumQuantity])
                        try maker.make(.banana)
                    }
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return 1e9 / nanoseconds
    }
}
