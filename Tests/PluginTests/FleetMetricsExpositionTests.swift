import JuiceMakerCore
import JuiceMakerPluginKit
import JuiceTestSupport
import Testing

/// The fleet's figures (`juice fleet metrics`' text) from machines' events: the same
/// sums a store's journal totals give, and one exposition with a `machine` label.
@Suite(.tags(.unit)) struct FleetMetricsExpositionTests {
    /// Seeded orders and stock changes on each of two machines, their journals added
    /// event by event: each machine's counters equal its store's journal totals, its
    /// stock gauges its stock for the fruit it changed and none for the rest, its events
    /// its journal's length. Every family is declared once, `machine` is each sample's
    /// first label, and the counters' HELP says retention can make them go down.
    @Test func fleetFiguresAreEachMachinesJournalTotals() throws {
        var generator = SeededGenerator(seed: 0x6d31)
        var machines: [FleetMachineFigures] = []
        var rigs: [Rig] = []
        for name in ["shop-1", "shop-2"] {
            let rig = Rig(stock: Stock(repeating: 20))
            _ = try rig.maker.set([.strawberry: 30, .kiwi: 12])
            for _ in 0..<40 {
                let juice = Juice.allCases[Int(generator.next() % UInt64(Juice.allCases.count))]
                _ = try rig.maker.make(juice, count: 1 + Int(generator.next() % 3))
            }
            var figures = FleetMachineFigures(machine: name)
            for envelope in try rig.store.events(after: 0, limit: 100_000) { figures.add(envelope.event) }
            machines.append(figures)
            rigs.append(rig)
        }
        let text = MetricsExposition.render(fleet: machines)
        guard case .success(let exposition) = Exposition.parse(text) else {
            Issue.record("does not parse: \(text)")
            return
        }
        for (figures, rig) in zip(machines, rigs) {
            let totals = try rig.store.journalTotals()
            let name = figures.machine
            #expect(figures.juicesMade == totals.juicesMade && figures.ordersFailed == totals.ordersFailed)
            #expect(figures.fruitConsumed == totals.fruitConsumed)
            #expect(!totals.ordersFailed.isEmpty, "the seed should refuse some orders")
            for juice in Juice.allCases {
                let labels = [("machine", name), ("juice", juice.id)]
                #expect(exposition.value("juicemaker_juices_made_total", labels: labels) == Double(totals.juicesMade[juice.id] ?? 0))
                #expect(exposition.value("juicemaker_orders_failed_total", labels: labels) == Double(totals.ordersFailed[juice.id] ?? 0))
            }
            let stock = try rig.maker.stock()
            for fruit in Fruit.allCases {
                let labels = [("machine", name), ("fruit", fruit.id)]
                #expect(exposition.value("juicemaker_fruit_consumed_total", labels: labels) == Double(totals.fruitConsumed[fruit.id] ?? 0))
                let changed = figures.stock[fruit.id] != nil
                #expect(exposition.value("juicemaker_fruit_in_stock", labels: labels) == (changed ? Double(stock[fruit]) : nil))
            }
            #expect(figures.stock["strawberry"] != nil && figures.stock["kiwi"] != nil)
            #expect(exposition.value("juicemaker_fleet_events_total", labels: [("machine", name)]) == Double(totals.events))
        }
        for (family, type) in exposition.types {
            #expect(family.hasSuffix("_total") == (type == "counter"), "\(family) is a \(type)")
            #expect(text.components(separatedBy: "# TYPE \(family) ").count == 2)
            #expect(text.components(separatedBy: "# HELP \(family) ").count == 2)
        }
        let samples = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(samples.allSatisfy { $0.contains("{machine=\"shop-") }, "\(text)")
        let counterHelp = text.split(separator: "\n").filter { $0.hasPrefix("# HELP") && $0.contains("_total ") }
        #expect(counterHelp.count == 4 && counterHelp.allSatisfy { $0.contains("goes down when retention drops old messages") })
        #expect(MetricsExposition.render(fleet: []) == "")
    }
}
