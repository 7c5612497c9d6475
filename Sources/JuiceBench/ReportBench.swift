import Foundation
import JuiceMakerCore
import SQLiteStore

/// `juice-bench report`: a store of 1,000,000 events spread over 60 days, then the wall
/// time of `juice report --since 30d` and `juice report --since 30d --svg FILE`
/// processes against the `sqlite3` shell running the equivalent `GROUP BY` (sales and
/// lost sales per juice, fruit consumed per day) over the journal of the same file, in
/// one process. Medians of alternating runs. Target: each report ≤ 300 ms.
///
/// The first report folds the whole journal into the projection once (printed as
/// "first report"); the figures after it are what an operator waits for every time.
enum ReportBench {
    static let events = 1_000_000
    static let runs = 9
    private static let day: Int64 = 86_400_000

    static func run(json: Bool) throws -> [(String, Double)] {
        let juice = try CLIBench.juiceBinary()
        try BenchDirectory.requireSQLiteShell()
        let directory = try BenchDirectory.make("report")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/juice.db"
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let generated = ContinuousClock.now
        let written = try generate(at: store, from: now - 60 * day, to: now)
        let generation = Measure.seconds(ContinuousClock.now - generated)
        let environment = [
            "HOME": directory, "XDG_STATE_HOME": directory + "/state", "XDG_CONFIG_HOME": directory + "/config",
            "PATH": "/usr/bin:/bin", "LANG": "en_US.UTF-8", "COLUMNS": "100",
        ]
        let config = directory + "/bench.json"
        try Data(#"{"subscribers": []}"#.utf8).write(to: URL(fileURLWithPath: config))
        let report = ["report", "--since", "30d", "--config", config, "--store", store]
        let svg = report + ["--svg", directory + "/report.svg"]
        let query = shellQuery(since: (now - 30 * day) / 3_600_000 * 3_600_000)

        let first = try CLIBench.check(CLIBench.launch(juice, report, environment), "juice report (first)")
        var reportTimes: [Double] = []
        var svgTimes: [Double] = []
        var shellTimes: [Double] = []
        // `juice events --limit 10 --type T` on the same journal, against the sqlite3
        // shell reading the same ten rows through the same index.
        let events = ["events", "--limit", "10", "--type", "juicemaker.order.failed", "--config", config, "--store", store]
        let eventsQuery =
            "SELECT sequence, event FROM journal INDEXED BY journal_by_type WHERE type = 'juicemaker.order.failed' ORDER BY sequence DESC LIMIT 10;"
        var eventsTimes: [Double] = []
        var eventsShellTimes: [Double] = []
        for _ in 0..<runs {
            reportTimes.append(try CLIBench.check(CLIBench.launch(juice, report, environment), "juice report"))
            svgTimes.append(try CLIBench.check(CLIBench.launch(juice, svg, environment), "juice report --svg"))
            shellTimes.append(try CLIBench.check(CLIBench.launch(CLIBench.shell, [store, query], environment), "sqlite3"))
            eventsTimes.append(try CLIBench.check(CLIBench.launch(juice, events, environment), "juice events"))
            eventsShellTimes.append(try CLIBench.check(CLIBench.launch(CLIBench.shell, [store, eventsQuery], environment), "sqlite3"))
        }
        let eventsMedian = Measure.median(eventsTimes) * 1000
        let eventsShellMedian = Measure.median(eventsShellTimes) * 1000
        let reportMedian = Measure.median(reportTimes) * 1000
        let svgMedian = Measure.median(svgTimes) * 1000
        let shellMedian = Measure.median(shellTimes) * 1000
        let figures: [(String, Double)] = [
            ("journal_events", Double(written)),
            ("generate_seconds", generation),
            ("first_report_ms", first * 1000),
            ("report_30d_ms", reportMedian),
            ("report_svg_ms", svgMedian),
            ("sqlite3_group_by_ms", shellMedian),
            ("report_ratio", reportMedian / shellMedian),
            ("svg_ratio", svgMedian / shellMedian),
            ("events_limit_type_ms", eventsMedian),
            ("sqlite3_events_limit_type_ms", eventsShellMedian),
        ]
        if !json {
            print("report: \(written) events over 60 days (written in \(Measure.format(generation)) s); median of \(runs) alternating runs")
            print("  first juice report --since 30d (folds the whole journal once)   \(Measure.format(first * 1000)) ms")
            print("  juice report --since 30d                                         \(Measure.format(reportMedian)) ms (target ≤ 300 ms)")
            print("  juice report --since 30d --svg FILE                              \(Measure.format(svgMedian)) ms (target ≤ 300 ms)")
            print("  sqlite3 shell, the same GROUP BY over the journal                \(Measure.format(shellMedian)) ms")
            print("  ratio report / sqlite3                                           \(Measure.format(reportMedian / shellMedian, decimals: 3))×")
            print("  ratio report --svg / sqlite3                                     \(Measure.format(svgMedian / shellMedian, decimals: 3))×")
            print("  juice events --limit 10 --type juicemaker.order.failed           \(Measure.format(eventsMedian)) ms (target ≤ 50 ms)")
            print(
                "  sqlite3 shell, the same ten rows through journal_by_type         \(Measure.format(eventsShellMedian)) ms (\(Measure.format(eventsMedian / eventsShellMedian))×)"
            )
        }
        return figures
    }

    /// What the report computes, as one would write it against the journal alone:
    /// sales and lost sales per juice, shortages per juice and fruit, fruit consumed
    /// per day and fruit, all since `since` (epoch ms).
    static func shellQuery(since: Int64) -> String {
        """
        SELECT event ->> '$.data.juice', count(*), sum(event ->> '$.data.count') FROM journal
          WHERE type = 'juicemaker.juice.made' AND time >= \(since) GROUP BY 1;
        SELECT event ->> '$.data.juice', count(*), sum(event ->> '$.data.count') FROM journal
          WHERE type = 'juicemaker.order.failed' AND time >= \(since) GROUP BY 1;
        SELECT journal.event ->> '$.data.juice', short.key, count(*), sum(short.value)
          FROM journal, json_each(journal.event, '$.data.shortages') AS short
          WHERE journal.type = 'juicemaker.order.failed' AND journal.time >= \(since) GROUP BY 1, 2;
        SELECT journal.time / 86400000, used.key, sum(used.value)
          FROM journal, json_each(journal.event, '$.data.consumed') AS used
          WHERE journal.type = 'juicemaker.juice.made' AND journal.time >= \(since) GROUP BY 1, 2;
        """
    }

    /// Writes about `events` events between `start` and `end` (epoch ms) the way the
    /// maker would: orders made (juiceMade, then one stockChanged per fruit), orders
    /// failed (orderFailed with the shortages), restocks; in batches of changes per
    /// transaction. Returns how many events were written.
    static func generate(at path: String, from start: Int64, to end: Int64, events: Int = events) throws -> Int {
        let store = try SQLiteStore(path: path, durability: .normal, initialStock: Stock(repeating: 50))
        var ids = EventIDGenerator()
        var random = SystemRandomNumberGenerator()
        var written = 0
        let averageStep = Double(end - start) / Double(events) * 2.2
        var time = Double(start)
        while written < events {
            let change = try store.commit { current, position in
                var stock = current
                var batch: [EventEnvelope] = []
                var sequence = position.nextSequence
                while batch.count < 10_000 {
                    time += Double.random(in: 0...(2 * averageStep), using: &random)
                    let milliseconds = min(end, Int64(time))
                    let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
                    let changeID = ids.next(unixMilliseconds: UInt64(milliseconds), after: batch.last?.id ?? position.lastEventID)
                    func append(_ event: JuiceMakerEvent) {
                        batch.append(
                            EventEnvelope(
                                sequence: sequence, id: ids.next(unixMilliseconds: UInt64(milliseconds)), time: date,
                                source: EventEnvelope.defaultSource, changeID: changeID, event: event))
                        sequence += 1
                    }
                    if Int.random(in: 0..<10, using: &random) == 0 {
                        let fruit = Fruit.allCases.randomElement(using: &random) ?? .kiwi
                        let before = stock[fruit]
                        stock[fruit] += 60
                        append(.stockChanged(fruit: fruit, from: before, to: stock[fruit], reason: .restock))
                        continue
                    }
                    let juice = Juice.allCases.randomElement(using: &random) ?? .banana
                    let shortages = SimulatedOrder.shortages(of: juice, in: stock)
                    guard shortages.isZero else {
                        append(.orderFailed(juice: juice, count: 1, shortages: shortages))
                        continue
                    }
                    SimulatedOrder.make(juice, from: &stock).forEach(append)
                }
                return StoreChange(stock: stock, events: batch)
            }
            written += change.events.count
        }
        return written
    }
}
