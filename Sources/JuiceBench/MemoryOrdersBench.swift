import CLINotifierPlugin
import Foundation
import JuiceJSON
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import LoggerPlugin

/// `juice-bench orders --store memory`: orders per second through `JuiceMaker` with
/// the in-memory store and two synchronous subscribers attached.
enum MemoryOrdersBench {
    static func run(json: Bool) throws -> [(String, Double)] {
        let perSecond = try ordersPerSecond(attaching: attachCounters)
        let withPlugins = try ordersPerSecond(attaching: attachPlugins)
        if !json {
            print("orders: in-memory store (median of 7 rounds)")
            for (name, value, note) in [
                ("2 synchronous counting subscribers", perSecond, "target ≥ 1,000,000"),
                ("logger (text) + CLI notifier → /dev/null", withPlugins, "the real plugins"),
            ] {
                print(
                    "  \(name.padding(toLength: 42, withPad: " ", startingAt: 0))\(Measure.format(value, decimals: 0).leftPadded(to: 9)) orders/s   \(note)"
                )
            }
        }
        return [("memory_per_s", perSecond), ("memory_plugins_per_s", withPlugins)]
    }

    /// The issue's figure: two synchronous subscribers that only count.
    static func attachCounters(_ maker: JuiceMaker) throws -> [any EventObserver] {
        let juices = Tally()
        let changes = Tally()
        _ = try maker.subscribe("bench-made", kinds: [.juiceMade]) { _ in juices.add(1) }
        _ = try maker.subscribe("bench-stock", kinds: [.stockChanged]) { _ in changes.add(1) }
        return []
    }

    /// The design's 1,000,000 orders/s figure, with the shipped logger (queued, text) and notifier (synchronous),
    /// both writing to /dev/null.
    static func attachPlugins(_ maker: JuiceMaker) throws -> [any EventObserver] {
        let sink = try FileSink(appendingTo: "/dev/null", gate: FileGate(guarding: nil), onFailure: { _ in })
        let context = PluginContext(
            name: "bench", language: .english, colorAllowed: false, stateDirectory: "/tmp",
            environment: [:], standardOutput: sink, standardError: sink)
        let host = PluginHost(maker: maker, journal: InMemoryStore(), reportError: { _ in })
        let logger = try EventLogger(
            configuration: PluginConfiguration(
                path: "subscribers[0]",
                values: [
                    JSONMember(key: "format", value: .string("text")), JSONMember(key: "path", value: .string("/dev/null")),
                ]),
            context: context)
        let notifier = try CLINotifier(configuration: PluginConfiguration(path: "subscribers[1]", values: []), context: context)
        try logger.attach(to: host)
        try notifier.attach(to: host)
        return [logger, notifier]
    }

    static func ordersPerSecond(attaching attach: (JuiceMaker) throws -> [any EventObserver]) throws -> Double {
        let maker = JuiceMaker(store: InMemoryStore(initialStock: Stock(repeating: Stock.maximumQuantity)))
        let plugins = try attach(maker)
        defer {
            Measure.blocking {
                for plugin in plugins.reversed() { await plugin.shutdown(deadline: .now + .seconds(5)) }
            }
        }
        var failure: JuiceMakerError?
        let nanoseconds = Measure.nanosecondsPerOperation(operations: 200_000) { n in
            do throws(JuiceMakerError) {
                for _ in 0..<n {
                    if case .insufficient = try maker.make(.banana) {
                        try maker.set([.banana: Stock.maximumQuantity])
                        try maker.make(.banana)
                    }
                }
                // Queued subscribers (the logger) finish inside the measured time.
                _ = maker.waitUntilIdle(timeout: .seconds(60))
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return 1e9 / nanoseconds
    }
}
