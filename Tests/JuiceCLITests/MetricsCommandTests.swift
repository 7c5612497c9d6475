import Foundation
import JuiceMakerCore
import JuiceTestSupport
import Testing

/// `juice metrics` and the `metrics` subscriber, as real `juice` processes: the
/// counters are the journal's, so a process that starts later prints what earlier
/// processes ordered, and the textfile they left says the same.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct MetricsCommandTests {
    /// A config with a metrics textfile in the store's directory and a durable
    /// `command` subscriber that delivers in the ordering process.
    private func sandboxWithMetrics() throws -> (JuiceSandbox, config: String, textfile: String) {
        let sandbox = try JuiceSandbox()
        let config = try sandbox.write(
            #"""
            {"backgroundDelivery": false, "initialStock": 60, "subscribers": [
              {"type": "metrics", "path": "juice.prom"},
              {"type": "command", "name": "feed", "command": ["/bin/sh", "-c", "cat > /dev/null"]}
            ]}
            """#, to: "config.json")
        let textfile = (sandbox.storePath as NSString).deletingLastPathComponent + "/juice.prom"
        return (sandbox, config, textfile)
    }

    private func parsed(_ text: String) -> Exposition? {
        guard case .success(let exposition) = Exposition.parse(text) else {
            Issue.record("does not parse as the exposition format: \(text)")
            return nil
        }
        return exposition
    }

    /// Orders in separate processes (seeded juices and counts, some refused for lack
    /// of fruit), then `juice metrics` in a new one: cups made and failed orders per
    /// juice are what was ordered, fruit consumed is the recipes of the juices made,
    /// stock is the initial stock less that, the journal's length is its last
    /// sequence, and the textfile the last order left holds the same counters.
    /// promtool finds nothing in either.
    @Test func countersSurviveARestart() throws {
        let (sandbox, config, textfile) = try sandboxWithMetrics()
        var generator = SeededGenerator(seed: 0x6e7a)
        var made: [Juice: Int] = [:]
        var failed: [Juice: Int] = [:]
        let started = Date().timeIntervalSince1970
        for _ in 0..<14 {
            let juice = Juice.allCases[Int(generator.next() % UInt64(Juice.allCases.count))]
            let count = 1 + Int(generator.next() % 3)
            let run = try sandbox.run(["order", juice.id, "--count", "\(count)", "--config", config, "--quiet"])
            switch run.status {
            case 0: made[juice, default: 0] += count
            case 1: failed[juice, default: 0] += 1
            default: Issue.record("juice order exited \(run.status): \(run.stderr)")
            }
        }
        #expect(!made.isEmpty && !failed.isEmpty, "the seed should make some orders and refuse some")
        let finished = Date().timeIntervalSince1970

        let printed = try sandbox.run(["metrics", "--config", config])
        #expect(printed.status == 0, "\(printed.stderr)")
        guard let metrics = parsed(printed.stdout) else { return }
        for juice in Juice.allCases {
            #expect(metrics.value("juicemaker_juices_made_total", "juice", juice.id) == Double(made[juice] ?? 0))
            #expect(metrics.value("juicemaker_orders_failed_total", "juice", juice.id) == Double(failed[juice] ?? 0))
        }
        for fruit in Fruit.allCases {
            let consumed = Juice.allCases.reduce(0) { $0 + $1.recipe[fruit] * (made[$1] ?? 0) }
            #expect(metrics.value("juicemaker_fruit_consumed_total", "fruit", fruit.id) == Double(consumed))
            #expect(metrics.value("juicemaker_fruit_in_stock", "fruit", fruit.id) == Double(60 - consumed))
        }
        let events = try sandbox.journal().count
        #expect(metrics.value("juicemaker_journal_events_total") == Double(events))
        #expect((metrics.value("juicemaker_store_size_bytes") ?? 0) > 0)
        // The durable subscriber delivered everything in the ordering processes.
        #expect(metrics.value("juicemaker_subscriber_lag_events", "subscriber", "feed") == 0)
        #expect(metrics.value("juicemaker_subscriber_dead_letters", "subscriber", "feed") == 0)
        let success = metrics.value("juicemaker_subscriber_last_success_timestamp_seconds", "subscriber", "feed") ?? 0
        #expect(success >= started.rounded(.down) && success <= finished.rounded(.up), "\(success) not in \(started)...\(finished)")

        guard let file = parsed(try String(contentsOfFile: textfile, encoding: .utf8)) else { return }
        let counters = { (exposition: Exposition) in
            exposition.samples.filter { key, _ in
                ["juicemaker_juices_made_total", "juicemaker_orders_failed_total", "juicemaker_fruit_consumed_total", "juicemaker_fruit_in_stock"]
                    .contains { key.hasPrefix($0 + "{") } || key == "juicemaker_journal_events_total"
            }
        }
        #expect(counters(file) == counters(metrics))
        #expect(counters(metrics).count == 2 * Juice.allCases.count + 2 * Fruit.allCases.count + 1)

        for text in [printed.stdout, try String(contentsOfFile: textfile, encoding: .utf8)] {
            guard let findings = try promtoolFindings(text) else { return }
            #expect(findings == "")
        }
    }

    /// An empty store prints zeros for every juice and fruit, and the initial stock.
    @Test func anEmptyStorePrintsZeros() throws {
        let sandbox = try JuiceSandbox()
        let printed = try sandbox.run(["metrics"])
        #expect(printed.status == 0, "\(printed.stderr)")
        guard let metrics = parsed(printed.stdout) else { return }
        #expect(metrics.value("juicemaker_juices_made_total", "juice", "mango-kiwi") == 0)
        #expect(metrics.value("juicemaker_fruit_in_stock", "fruit", "kiwi") == Double(Stock.defaultInitialQuantity))
        #expect(metrics.value("juicemaker_journal_events_total") == 0)
    }
}
