import Foundation
import SQLiteStore

/// juice-bench: every figure beside its baseline, measured in the same run.
let usage = """
    usage: juice-bench [SECTION ...] [--store memory|sqlite] [--durability full|normal] [--check-every N] [--json | --markdown]
           (SECTION: bus, orders, webhook, cli, follow, report, retention, json, config, fleet, all; several may be named)
           juice-bench start-order

      bus      ns per event: direct call, closure array, EventBus sync (1 and 4) and queued,
               NotificationCenter, AsyncStream, maker.events(), MainActorMessage, AsyncMessage
      orders   orders/s through JuiceMaker (memory: 2 sync subscribers; sqlite: against raw C API SQL;
               --check-every N: the store's background integrity check interval, 0 for none; CPU/order
               counts the whole process, so it includes that check's thread)
      webhook  deliveries/s to a loopback endpoint; orders/s with a webhook attached against none;
               CPU while a delivery waits on an endpoint that never answers
      cli      whole juice processes against baselines in the same run: stock and order against the
               sqlite3 shell, --version against juice-hello; peak RSS; commit → webhook request p50/p99
               (build juice and juice-hello with -c release first; JUICE_BENCH_JUICE=PATH measures another juice)
      follow   another process's commit → a waiting reader sees it (p50/p99); CPU of idle waiters
      report   wall time of `juice report --since 30d` (and --svg) on 1,000,000 events against
               the sqlite3 shell running the same GROUP BY over the journal (not in `all`: it
               writes a large store)
      retention
               a store of --events N events (10,000,000 by default) over 400 days: juice report, events --since,
               subscribers, a new subscriber's catch-up and store compact, each against the sqlite3 shell doing the
               same work on the same file (not in `all`: it writes a large store)
      json     seconds the config's JSON reader takes for large inputs (40,000 keys, 10^6 escapes, 10 MB)
      config   seconds one `juice config check` takes for 1 (the baseline), 8,000 and 16,000 subscribers
      fleet    events/s the nats subscriber publishes a 100,000-event journal to a local JetStream at,
               against libnats' own async-publish loop of the same messages; commit → juice fleet
               watch p50/p99 with juice deliver --follow running (needs libnats and
               nats-server; not in `all`: it starts a server and writes a large store), and the CPU
               per event of each side and of the server; juice fleet deliver (a whole process, start-up
               included) feeding a webhook answering after 50 ms from a stream of maxInFlight × 40 events,
               at maxInFlight 1, 16 and 64: events/s beside the limit maxInFlight / 0.05 s, and the time
               of an empty run; JUICE_BENCH_FLEET_ROUNDS=N rounds (3), JUICE_BENCH_FLEET_EVENTS=N events
               published, JUICE_BENCH_FLEET_LATENCY=0 no latency part
      all      everything above (the default)
      start-order
               not a measurement: prints the functions a release juice runs at start, which the
               release link places together (Sources/juice/start-order.txt; needs valgrind)
      --json   one JSON object instead of tables
      --markdown
               the performance article's table: date, machine, build, then every figure in order
    Build with -c release: swift run -c release juice-bench
    """

func main() -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.contains("--help") || arguments.contains("-h") {
        print(usage)
        return 0
    }
    let markdown = arguments.contains("--markdown")
    let json = arguments.contains("--json") || markdown
    arguments.removeAll { $0 == "--json" || $0 == "--markdown" }
    func option(_ name: String) -> [String]? {
        guard let index = arguments.firstIndex(of: name) else { return nil }
        guard index + 1 < arguments.count else { return [] }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...(index + 1))
        return [value]
    }
    let store = option("--store")
    let durability = option("--durability")
    let checkEvery = option("--check-every")
    let eventCount = option("--events")
    if eventCount == [] || eventCount.map({ Int($0[0]).map { $0 < 2 } ?? true }) == true {
        FileHandle.standardError.write(Data("juice-bench: --events needs a whole number of at least 2\n\(usage)\n".utf8))
        return 64
    }
    if store == [] || durability == [] || checkEvery == [] || checkEvery.map({ Int64($0[0]) == nil }) == true {
        FileHandle.standardError.write(Data("juice-bench: --store, --durability and --check-every need a value\n\(usage)\n".utf8))
        return 64
    }
    let command = arguments.first ?? "all"
    if command == "start-order" {
        guard arguments.count == 1, !json else {
            FileHandle.standardError.write(Data("juice-bench: start-order takes no other argument or option (not --json)\n".utf8))
            return 64
        }
        do {
            print(try StartOrder.run(), terminator: "")
            return 0
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            return 70
        }
    }
    let known = ["bus", "orders", "webhook", "cli", "follow", "report", "retention", "json", "config", "fleet", "all"]
    guard arguments.allSatisfy(known.contains) else {
        FileHandle.standardError.write(Data("juice-bench: unknown arguments \(arguments.joined(separator: " "))\n\(usage)\n".utf8))
        return 64
    }
    #if DEBUG
    FileHandle.standardError.write(Data("juice-bench: this is a debug build; figures mean little. Use: swift run -c release juice-bench\n".utf8))
    #endif
    // Several sections may be named (`juice-bench bus orders cli`); `all` is every one but report and fleet.
    let chosen = Set(arguments.isEmpty ? ["all"] : arguments)
    func runs(_ section: String) -> Bool {
        chosen.contains(section) || (chosen.contains("all") && section != "report" && section != "fleet" && section != "retention")
    }
    var sections: [(String, [(String, Double)])] = []
    do {
        if runs("bus") {
            sections.append(("bus", BusBench.run(json: json)))
        }
        if runs("orders") {
            var orders: [(String, Double)] = []
            let stores = store ?? (chosen.contains("all") ? ["memory", "sqlite"] : ["memory"])
            for kind in stores {
                switch kind {
                case "memory": orders += try MemoryOrdersBench.run(json: json)
                case "sqlite":
                    let modes = durability ?? ["full", "normal"]
                    let every = checkEvery.flatMap { Int64($0[0]) } ?? SQLiteStore.Options().checkEvery
                    orders += try SQLiteOrdersBench.run(durabilities: modes, checkEvery: every, json: json).sorted { $0.key < $1.key }
                default: throw BenchError.usage("unknown store \(kind); use memory or sqlite")
                }
            }
            sections.append(("orders", orders))
        }
        if runs("webhook") {
            sections.append(("webhook", try WebhookBench.run(json: json)))
        }
        if runs("cli") {
            sections.append(("cli", try CLIBench.run(json: json).sorted { $0.key < $1.key }))
        }
        if runs("follow") { sections.append(("follow", try FollowBench.run(json: json))) }
        if runs("report") {
            sections.append(("report", try ReportBench.run(json: json)))
        }
        if runs("retention") {
            let events = eventCount.flatMap { Int($0[0]) } ?? RetentionBench.defaultEvents
            sections.append(("retention", try RetentionBench.run(events: events, json: json)))
        }
        if runs("fleet") {
            sections.append(("fleet", try FleetBench.run(json: json)))
        }
        if runs("json") {
            sections.append(("json", try JSONBench.run(json: json)))
        }
        if runs("config") {
            sections.append(("config", try ConfigBench.run(json: json)))
        }
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        if json, !sections.isEmpty { print(Measure.json(sections)) }
        return 70
    }
    if markdown {
        print(MarkdownReport.render(sections, command: arguments.isEmpty ? "all" : arguments.joined(separator: " ")), terminator: "")
    } else if json {
        print(Measure.json(sections))
    }
    return 0
}

exit(main())
