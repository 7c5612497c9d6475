import JuiceMakerCore

/// One machine's figures as the fleet's stream holds them (`juice fleet metrics`):
/// its events the stream retains, each counted once, summed as a store's journal
/// totals are (`JournalTotals.count`), and its stock after its last stock change there.
package struct FleetMachineFigures: Sendable, Equatable {
    package let machine: String
    /// Juices made, in cups, by juice id.
    package private(set) var juicesMade: [String: Int] = [:]
    /// Orders refused for lack of fruit, by juice id.
    package private(set) var ordersFailed: [String: Int] = [:]
    /// Fruit used by the juices made, by fruit id.
    package private(set) var fruitConsumed: [String: Int] = [:]
    /// By fruit id, the quantity after the last stock change added; a fruit without one
    /// (never changed, or its changes no longer retained) has none.
    package private(set) var stock: [String: Int] = [:]
    /// Events added.
    package private(set) var events = 0

    package init(machine: String) {
        self.machine = machine
    }

    /// Adds one of the machine's events, in stream order: the caller counts each event
    /// once (a resend after the stream's duplicate window is the same event again).
    package mutating func add(_ event: JuiceMakerEvent) {
        events += 1
        if case let .stockChanged(fruit, _, to, _) = event { stock[fruit.id] = to }
        JournalTotals.count(event, juicesMade: &juicesMade, ordersFailed: &ordersFailed, fruitConsumed: &fruitConsumed)
    }
}

extension MetricsExposition {
    /// What each counter of the fleet's figures says about where it was counted.
    static let fleetCounted =
        "over the events the fleet's stream retains (it goes down when retention drops old messages, which a rate reads as a reset)"

    /// `machines`' figures in the same format and under the same names as one store's,
    /// each sample labelled `machine` first, each family's HELP and TYPE once, the
    /// machines in the order given; and `juicemaker_fleet_events_total{machine}`. The
    /// counters count what the stream retains, so unlike a store's they go down when
    /// retention drops old messages: their HELP says so. Empty for no machines.
    package static func render(fleet machines: [FleetMachineFigures]) -> String {
        var text = tallyFamilies(
            machines.map {
                Tally(
                    labels: [("machine", $0.machine)], juicesMade: $0.juicesMade, ordersFailed: $0.ordersFailed,
                    fruitConsumed: $0.fruitConsumed, stock: $0.stock)
            }, counted: fleetCounted,
            stockHelp:
                "Fruit in stock after the machine's last stock change the fleet's stream retains (none for a fruit it did not change within retention)."
        )
        family(
            &text, "juicemaker_fleet_events_total", .counter, "The machine's events, each counted once, \(fleetCounted).",
            machines.map { (labels([("machine", $0.machine)]), "\($0.events)") })
        return text
    }
}
