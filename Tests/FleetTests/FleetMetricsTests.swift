import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing
import NATSClient

/// `juice fleet metrics` against a real `nats-server -js`: the fleet's figures, read
/// from the stream, are what each machine ordered and holds.
@Suite(.tags(.process, .nats, .slow), .notInUnitRun, .requiresNATS, .serialized)
struct FleetMetricsTests {
    private func parsed(_ text: String) -> Exposition? {
        guard case .success(let exposition) = Exposition.parse(text) else {
            Issue.record("does not parse as the exposition format: \(text)")
            return nil
        }
        return exposition
    }

    /// Two machines order seeded juices and counts (some refused for lack of fruit) and
    /// publish. For each machine: cups made and failed orders per juice are what it
    /// ordered, fruit consumed is the recipes of its juices made, the stock is its own
    /// `juice stock`, its events are its journal. Hostile messages (a source naming
    /// another machine, a subject another event goes to) are skipped with one stderr
    /// line each, and they and a resend of a real event change nothing. promtool finds
    /// nothing; each family is declared once.
    @Test(.timeLimit(.minutes(3)))
    func fleetMetricsAreWhatEachMachineDid() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        var generator = SeededGenerator(seed: 0x31f1)
        var made: [String: [Juice: Int]] = [:]
        var failed: [String: [Juice: Int]] = [:]
        let machines = try ["shop-1", "shop-2"].map {
            try JuiceSandbox.fleetMachine($0, subscribers: FleetIntegrationTests.natsSubscriber(server.url))
        }
        for machine in machines {
            // Every fruit changes at least once (the stream holds changes, not the initial stock); little strawberry and banana.
            #expect(try await machine.running(["stock", "set", "strawberry=40", "banana=5", "kiwi=50", "pineapple=9", "mango=60"]).status == 0)
            for _ in 0..<12 {
                let juice = Juice.allCases[Int(generator.next() % UInt64(Juice.allCases.count))]
                let count = 1 + Int(generator.next() % 3)
                let run = try await machine.running(["order", juice.id, "--count", "\(count)", "--quiet"])
                switch run.status {
                case 0: made[machine.name, default: [:]][juice, default: 0] += count
                case 1: failed[machine.name, default: [:]][juice, default: 0] += 1
                default: Issue.record("juice order exited \(run.status): \(run.stderr)")
                }
            }
            #expect(try await machine.running(["deliver"]).status == 0, "\(machine.errors)")
        }
        #expect(!made.isEmpty && !failed.isEmpty, "the seed should make some orders and refuse some")
        let viewer = try JuiceSandbox.fleetMachine("viewer", subscribers: "[]", extra: #""fleet": {"url": "\#(server.url)"}"#)
        let first = try await viewer.running(["fleet", "metrics"])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        let metrics = try #require(parsed(first.stdout))
        for machine in machines {
            let name = machine.name
            for juice in Juice.allCases {
                let labels = [("machine", name), ("juice", juice.id)]
                #expect(metrics.value("juicemaker_juices_made_total", labels: labels) == Double(made[name]?[juice] ?? 0), "\(labels)")
                #expect(metrics.value("juicemaker_orders_failed_total", labels: labels) == Double(failed[name]?[juice] ?? 0), "\(labels)")
            }
            let stock = try await machine.stockNow()
            for fruit in Fruit.allCases {
                let labels = [("machine", name), ("fruit", fruit.id)]
                let consumed = Juice.allCases.reduce(0) { $0 + $1.recipe[fruit] * (made[name]?[$1] ?? 0) }
                #expect(metrics.value("juicemaker_fruit_consumed_total", labels: labels) == Double(consumed), "\(labels)")
                #expect(metrics.value("juicemaker_fruit_in_stock", labels: labels) == stock[fruit.id].map(Double.init), "\(labels)")
            }
            let events = try await machine.eventIDs().count
            #expect(metrics.value("juicemaker_fleet_events_total", labels: [("machine", name)]) == Double(events))
        }
        #expect(metrics.value("juicemaker_fleet_events_total", labels: [("machine", "viewer")]) == nil)
        for (family, type) in metrics.types {
            #expect(family.hasSuffix("_total") == (type == "counter"), "\(family) is a \(type)")
            #expect(first.stdout.components(separatedBy: "# TYPE \(family) ").count == 2)
            #expect(first.stdout.components(separatedBy: "# HELP \(family) ").count == 2)
        }
        #expect(first.stdout.contains("retention drops old messages"))
        if let findings = try promtoolFindings(first.stdout) { #expect(findings == "") }

        // Hostile: shop-1's juice as shop-2's, and on the subject of a failed order; then a resend of it.
        let line = try #require(
            try await machines[0].running(["events", "--json", "--type", "juiceMade", "--limit", "1"]).stdout.split(separator: "\n").first)
        let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let juice = try #require(event["subject"] as? String)
        let stolen = line.replacingOccurrences(of: "/juice-maker/shop-1\"", with: "/juice-maker/shop-2\"")
        #expect(stolen != line)
        let connection = try server.connect()
        defer { connection.close() }
        for (subject, body) in [
            ("juicemaker.shop-1.juice.made.\(juice)", stolen), ("juicemaker.shop-1.order.failed.\(juice)", String(line)),
            ("juicemaker.shop-1.juice.made.\(juice)", String(line)),
        ] {
            try connection.publish(subject: subject, body: Array(body.utf8), headers: [], messageID: UUID().uuidString)
        }
        let second = try await viewer.running(["fleet", "metrics"])
        #expect(second.status == 0)
        #expect(second.stdout == first.stdout)
        let skipped = second.stderr.split(separator: "\n")
        #expect(skipped.count == 2 && skipped.allSatisfy { $0.contains("skipped stream sequence") }, "\(second.stderr)")
        #expect(skipped.first?.contains("source names machine shop-2") == true, "\(second.stderr)")
        #expect(skipped.last?.contains("does not match its event") == true, "\(second.stderr)")
    }

    /// A stream with no machine's events prints nothing, and exits 0.
    @Test(.timeLimit(.minutes(1)))
    func anEmptyStreamPrintsNothing() async throws {
        let server = try await NATSServerProcess.started()
        defer { server.stop() }
        let connection = try server.connect()
        defer { connection.close() }
        try connection.ensureStream("JUICEMAKER", subjects: "juicemaker.>", replicas: 1)
        let viewer = try JuiceSandbox.fleetMachine("viewer", subscribers: "[]")
        let result = try await viewer.running(["fleet", "metrics", "--nats", server.url])
        #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(result.stdout)\(result.stderr)")
    }
}
