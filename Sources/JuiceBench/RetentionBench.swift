import Foundation
import JuiceMakerCore
import SQLiteStore

/// `juice-bench retention [--events N]`: a store of N events (default 10,000,000) spread
/// over 400 days, a durable subscriber that has been sent all of them, then whole `juice`
/// processes against the `sqlite3` shell doing the same work on the same file, in one run
/// (medians of alternating runs, ratio printed): `report --since 30d`, `events --since`
/// (the last 1,000 events), `subscribers`, a new subscriber's catch-up (`juice deliver`
/// of a new command subscriber against the shell reading every event out), and
/// `store compact --retention 200d` against the shell folding and deleting the same
/// events in one transaction on a copy of the file. Not in `all`: it writes a large store.
enum RetentionBench {
    static let defaultEvents = 10_000_000
    static let runs = 5
    private static let day: Int64 = 86_400_000

    static func run(events: Int, json: Bool) throws -> [(String, Double)] {
        let juice = try CLIBench.juiceBinary()
        try BenchDirectory.requireSQLiteShell()
        let directory = try BenchDirectory.make("retention")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/juice.db"
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let generated = ContinuousClock.now
        let written = try ReportBench.generate(at: store, from: now - 400 * day, to: now, events: events)
        let generation = Measure.seconds(ContinuousClock.now - generated)
        let last = try SQLiteStore(path: store).lastSequence()
        try SQLiteStore(path: store).setCursor(named: "sink", to: last)
        let environment = [
            "HOME": directory, "XDG_STATE_HOME": directory + "/state", "XDG_CONFIG_HOME": directory + "/config",
            "PATH": "/usr/bin:/bin", "LANG": "en_US.UTF-8", "COLUMNS": "100",
        ]
        let sink = #"{"type": "command", "name": "sink", "command": ["/bin/sh", "-c", "cat > /dev/null"]}"#
        let config = directory + "/bench.json"
        try Data(#"{"backgroundDelivery": false, "store": {"retention": "200d"}, "subscribers": [\#(sink)]}"#.utf8).write(
            to: URL(fileURLWithPath: config))
        let common = ["--config", config, "--store", store]
        let since = last - 1_000
        let pairs: [(name: String, juice: [String], shell: String)] = [
            ("report_30d", ["report", "--since", "30d"], ReportBench.shellQuery(since: (now - 30 * day) / 3_600_000 * 3_600_000)),
            ("events_since", ["events", "--since", "\(since)", "--json"], "SELECT event FROM journal WHERE sequence > \(since) ORDER BY sequence;"),
            (
                "subscribers", ["subscribers"],
                "SELECT subscriber, sequence FROM cursors; SELECT max(sequence) FROM journal; SELECT count(*) FROM dead_letters;"
            ),
        ]
        _ = try CLIBench.check(CLIBench.launch(juice, ["report", "--since", "30d"] + common, environment), "juice report (first)")
        var figures: [(String, Double)] = [("journal_events", Double(written)), ("generate_seconds", generation)]
        var lines: [String] = []
        for pair in pairs {
            var mine: [Double] = []
            var theirs: [Double] = []
            for _ in 0..<runs {
                mine.append(try CLIBench.check(CLIBench.launch(juice, pair.juice + common, environment), "juice \(pair.name)"))
                theirs.append(try CLIBench.check(CLIBench.launch(CLIBench.shell, [store, pair.shell], environment), "sqlite3"))
            }
            let (a, b) = (Measure.median(mine) * 1000, Measure.median(theirs) * 1000)
            figures += [("\(pair.name)_ms", a), ("sqlite3_\(pair.name)_ms", b), ("\(pair.name)_ratio", a / b)]
            lines.append("  \(pair.name): juice \(Measure.format(a)) ms, sqlite3 \(Measure.format(b)) ms, \(Measure.format(a / b, decimals: 2))×")
        }

        // A new subscriber catches up on the whole journal, once each.
        let fresh = directory + "/fresh.json"
        let freshSink = #"{"type": "command", "name": "fresh", "command": ["/bin/sh", "-c", "cat > /dev/null"]}"#
        try Data(#"{"backgroundDelivery": false, "subscribers": [\#(freshSink)]}"#.utf8).write(to: URL(fileURLWithPath: fresh))
        let catchUp = try CLIBench.check(CLIBench.launch(juice, ["deliver", "--config", fresh, "--store", store], environment), "juice deliver")
        let readAll = try CLIBench.check(
            CLIBench.launch("/bin/sh", ["-c", "\(CLIBench.shell) \(store) 'SELECT event FROM journal ORDER BY sequence;' > /dev/null"], environment),
            "sqlite3")
        figures += [("catch_up_s", catchUp), ("sqlite3_read_all_s", readAll), ("catch_up_ratio", catchUp / readAll)]
        lines.append(
            "  new subscriber catch-up: juice deliver \(Measure.format(catchUp)) s, sqlite3 reading every event \(Measure.format(readAll)) s, \(Measure.format(catchUp / readAll, decimals: 2))×"
        )

        // Compaction, once (it deletes): the shell does the same folding and deleting on a copy.
        let copy = directory + "/copy.db"
        try FileManager.default.copyItem(atPath: store, toPath: copy)
        let cutoff = now - 200 * day
        let compact = try CLIBench.check(CLIBench.launch(juice, ["store", "compact"] + common, environment), "juice store compact")
        let through = try SQLiteStore(path: store).compactionState().through
        let fold = """
            BEGIN IMMEDIATE;
            INSERT INTO journal_rollups (hour, kind, item, fruit, events, amount)
              SELECT time / 3600000, 1, event ->> '$.data.juice', '', count(*), sum(event ->> '$.data.count') FROM journal
              WHERE type = 'juicemaker.juice.made' AND sequence <= \(through) AND time < \(cutoff) GROUP BY 1, 3
              ON CONFLICT DO UPDATE SET events = events + excluded.events, amount = amount + excluded.amount;
            DELETE FROM journal WHERE sequence <= \(through);
            COMMIT;
            """
        let shellCompact = try CLIBench.check(CLIBench.launch(CLIBench.shell, [copy, fold], environment), "sqlite3 compact")
        figures += [
            ("compacted_events", Double(through)), ("compact_s", compact), ("sqlite3_compact_s", shellCompact),
            ("compact_ratio", compact / shellCompact),
        ]
        lines.append(
            "  store compact (\(through) events older than 200 days): juice \(Measure.format(compact)) s in batches of "
                + "\(SQLiteStore.compactionBatchSize), sqlite3 one transaction \(Measure.format(shellCompact)) s, \(Measure.format(compact / shellCompact, decimals: 2))×"
        )
        if !json {
            print("retention: \(written) events over 400 days (written in \(Measure.format(generation)) s); median of \(runs) alternating runs")
            for line in lines { print(line) }
        }
        return figures
    }
}
