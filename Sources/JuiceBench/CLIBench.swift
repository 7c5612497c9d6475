import Foundation
import Spawning

/// `juice-bench cli`: whole `juice` processes against what a C tool or a bare Swift
/// program pays for the same work, each pair measured in the same run, alternating
/// (every round runs every command once), medians of `runs` rounds:
///
/// - `juice stock` against `sqlite3 FILE 'select fruit, quantity from stock'` (≤ 3×);
/// - `juice order banana` with the built-in config against the `sqlite3` shell doing
///   the same transaction with the same pragmas on a copy of the store (≤ 2×); the
///   same order with the logger writing to a file and the notifier (the first row this
///   bench had, ≤ 3×), and with a webhook to a loopback endpoint this bench runs
///   (answering 200) and a command subscriber (`/bin/cat`) (≤ 2.3×);
/// - `juice --version` against `juice-hello`, a FoundationEssentials "hello" built
///   beside it (the floor, ≤ 1.3×), and a second copy of the floor against the first
///   (A/A: what the method itself reads for two identical programs, ideally 1.00×);
/// - the peak RSS of `juice stock` (`ru_maxrss`, through GNU time, ≤ 12 MB) beside sqlite3's;
/// - commit → request at the endpoint, p50 and p99 over every event the webhook
///   orders made (≤ 50 ms), and what was left undelivered once the background
///   `juice deliver` each order started had finished. That process is waited for after
///   each order, untimed, so its work never overlaps the next command measured.
///
/// The programs compared run next to each other in a group, and the rounds take the
/// group's orders in turn (AB, BA for a pair; all six for three), so each program runs
/// equally often in each place and after each of the others. A fixed order favours
/// the second of a pair, visibly so even for two copies of one program (the A/A row
/// reads away from 1.00× when their places are fixed).
///
/// Every `juice` runs in an empty directory with `HOME` and the XDG directories in it,
/// so no config file of the machine or the checkout is read. `JUICE_BENCH_JUICE` names
/// another `juice` binary to measure (an older build, for a before/after table).
enum CLIBench {
    /// At least 21 rounds (`JUICE_BENCH_RUNS` asks for more), rounded up to a whole
    /// number of 6: every order of a group of three, and of a pair, runs equally often.
    static let runs = roundedToOrders(max(21, Int(ProcessInfo.processInfo.environment["JUICE_BENCH_RUNS"] ?? "") ?? 21))

    static func roundedToOrders(_ rounds: Int) -> Int { (rounds + 5) / 6 * 6 }
    static let shell = "/usr/bin/sqlite3"

    static func run(json: Bool) throws -> [String: Double] {
        let builtJuice = try ProcessInfo.processInfo.environment["JUICE_BENCH_JUICE"] ?? juiceBinary()
        let builtHello = try siblingBinary("juice-hello")
        try BenchDirectory.requireSQLiteShell()
        let directory = try BenchDirectory.make("cli")
        // Every program measured runs from a copy made now, so all of them start from the
        // same place in the page cache: a binary that has sat for minutes runs slower than
        // a fresh copy of itself (the kernel has reclaimed some of its pages), by more
        // than some changes being measured.
        let (juice, hello, sqlite3) = (
            try freshCopy(builtJuice, into: directory), try freshCopy(builtHello, into: directory), try freshCopy(shell, into: directory)
        )
        let helloCopy = try freshCopy(builtHello, into: directory, as: "bin-juice-hello-copy")
        let previousDirectory = FileManager.default.currentDirectoryPath
        // No config/juice-maker.json of the checkout: the built-in config is the default.
        _ = FileManager.default.changeCurrentDirectoryPath(directory)
        defer {
            _ = FileManager.default.changeCurrentDirectoryPath(previousDirectory)
            try? FileManager.default.removeItem(atPath: directory)
        }
        let endpoint = try BenchEndpoint(recordsArrivals: true)
        defer { endpoint.stop() }
        let loggerConfig = directory + "/logger.json"
        try Data(
            """
            {"subscribers": [{"type": "logger", "format": "text", "path": "juice-maker.log"}, {"type": "cli-notifier"}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: loggerConfig))
        let deliveryConfig = directory + "/delivery.json"
        try Data(
            """
            {"subscribers": [{"type": "webhook", "url": "\(endpoint.url)"}, {"type": "command", "command": ["/bin/cat"]}]}
            """.utf8
        ).write(to: URL(fileURLWithPath: deliveryConfig))
        let environment = [
            "HOME": directory, "XDG_STATE_HOME": directory + "/state", "XDG_CONFIG_HOME": directory + "/config",
            "PATH": "/usr/bin:/bin", "LANG": "en_US.UTF-8",
        ]
        let store = directory + "/juice.db"
        let loggerStore = directory + "/logger.db"
        let deliveryStore = directory + "/delivery.db"
        let shellStore = directory + "/shell.db"
        // Enough bananas for every run; each store is created by juice itself.
        for (path, config) in [(store, nil), (loggerStore, loggerConfig), (deliveryStore, deliveryConfig)] {
            let configArguments = config.map { ["--config", $0] } ?? []
            try check(launch(juice, ["stock", "set", "banana=1000000", "--store", path] + configArguments, environment), "juice stock set")
        }
        try FileManager.default.copyItem(atPath: store, toPath: shellStore)
        let deliveredBefore = endpoint.arrivals.count

        typealias Command = (key: String, executable: String, arguments: (Int) -> [String])
        let groups: [[Command]] = [
            [
                ("juice_stock", juice, { _ in ["stock", "--store", store] }),
                ("sqlite3_select", sqlite3, { _ in [store, "select fruit, quantity from stock"] }),
            ],
            [("juice_version", juice, { _ in ["--version"] }), ("juice_hello", hello, { _ in [] }), ("juice_hello_copy", helloCopy, { _ in [] })],
            [
                ("juice_order_default", juice, { _ in ["order", "banana", "--store", store] }),
                ("sqlite3_transaction", sqlite3, { [shellStore, transaction($0 * 3)] }),
            ],
            [
                ("juice_order", juice, { _ in ["order", "banana", "--config", loggerConfig, "--store", loggerStore] }),
                ("sqlite3_transaction", sqlite3, { [shellStore, transaction($0 * 3 + 1)] }),
            ],
            [
                ("juice_order_delivery", juice, { _ in ["order", "banana", "--config", deliveryConfig, "--store", deliveryStore] }),
                ("sqlite3_transaction", sqlite3, { [shellStore, transaction($0 * 3 + 2)] }),
            ],
        ]
        let commands = groups.flatMap { $0 }
        var times: [String: [Double]] = [:]
        var peaks: [String: [Double]] = [:]
        for round in 0..<runs {
            for command in groups.flatMap({ order($0, round: round) }) {
                let outcome = try launchMeasured(command.executable, command.arguments(round), environment)
                guard outcome.status == 0 else { throw BenchError.unavailable("\(command.key) (it exited with status \(outcome.status))") }
                times[command.key, default: []].append(outcome.seconds * 1000)
                if command.key == "juice_order_delivery" { try waitForBackgroundDelivery(deliveryStore) }
            }
        }
        // Peak RSS in a pass of its own, each process started by GNU time: a child
        // posix_spawn'ed by this process gets this process's high-water mark counted in
        // its ru_maxrss when it execs (the kernel keeps the larger of the old and new
        // memory's), so wait4 here would report this bench's own peak for every command.
        for round in 0..<5 {
            for command in commands where ["juice_stock", "sqlite3_select", "juice_hello", "juice_order_delivery"].contains(command.key) {
                peaks[command.key, default: []].append(
                    try peakMegabytes(command.executable, command.arguments(runs + round), environment, in: directory))
                if command.key == "juice_order_delivery" { try waitForBackgroundDelivery(deliveryStore) }
            }
        }
        // What the webhook orders committed, and what reached the endpoint.
        let arrivals = Array(endpoint.arrivals.dropFirst(deliveredBefore))
        let latencies = arrivals.compactMap(\.latencyMilliseconds).sorted()
        let journalEnd = try sqliteScalar(deliveryStore, "select coalesce(max(sequence), 0) from journal")
        let delivered = Set(endpoint.arrivals.compactMap(\.sequence))
        let undelivered = Double((1...max(1, Int(journalEnd))).filter { !delivered.contains(Int64($0)) }.count)

        let m = times.mapValues(Measure.median)
        let baseline = m["sqlite3_transaction"]!
        var figures: [String: Double] = [
            "juice_stock_ms": m["juice_stock"]!, "sqlite3_select_ms": m["sqlite3_select"]!,
            "stock_ratio": m["juice_stock"]! / m["sqlite3_select"]!,
            "juice_version_ms": m["juice_version"]!, "juice_hello_ms": m["juice_hello"]!,
            "version_ratio": m["juice_version"]! / m["juice_hello"]!,
            "juice_hello_copy_ms": m["juice_hello_copy"]!, "floor_copy_ratio": m["juice_hello_copy"]! / m["juice_hello"]!,
            "juice_order_default_ms": m["juice_order_default"]!, "order_default_ratio": m["juice_order_default"]! / baseline,
            "juice_order_process_ms": m["juice_order"]!, "sqlite3_shell_process_ms": baseline,
            "ratio": m["juice_order"]! / baseline,
            "juice_order_delivery_ms": m["juice_order_delivery"]!, "order_delivery_ratio": m["juice_order_delivery"]! / baseline,
            "juice_stock_peak_rss_mb": Measure.median(peaks["juice_stock"]!),
            "sqlite3_select_peak_rss_mb": Measure.median(peaks["sqlite3_select"]!),
            "juice_order_delivery_peak_rss_mb": Measure.median(peaks["juice_order_delivery"]!),
            "juice_hello_peak_rss_mb": Measure.median(peaks["juice_hello"]!),
            "delivery_events": Double(latencies.count),
            "delivery_p50_ms": percentile(latencies, 0.5), "delivery_p99_ms": percentile(latencies, 0.99),
            "delivery_max_ms": latencies.last ?? 0,
            "undelivered_events": undelivered,
        ]
        figures["load_average_1m"] = loadAverage()
        if !json {
            func row(_ label: String, _ value: Double, _ unit: String = "ms") {
                print("  " + label.padding(toLength: 62, withPad: " ", startingAt: 0) + format(value) + " " + unit)
            }
            print("cli: one process each, medians of \(runs) alternating rounds (load average \(format(figures["load_average_1m"]!)))")
            row("juice stock", m["juice_stock"]!)
            row("sqlite3 FILE 'select fruit, quantity from stock'", m["sqlite3_select"]!)
            row("  ratio (target ≤ 3×)", figures["stock_ratio"]!, "×")
            row("juice order banana (built-in config)", m["juice_order_default"]!)
            row("juice order banana (logger to a file, notifier)", m["juice_order"]!)
            row("juice order banana (webhook to loopback, command /bin/cat)", m["juice_order_delivery"]!)
            row("sqlite3 shell, the same transaction and pragmas", baseline)
            row("  ratio, built-in config (target ≤ 2×)", figures["order_default_ratio"]!, "×")
            row("  ratio, logger and notifier (target ≤ 3×)", figures["ratio"]!, "×")
            row("  ratio, webhook and command (target ≤ 2.3×)", figures["order_delivery_ratio"]!, "×")
            row("juice --version", m["juice_version"]!)
            row("juice-hello (FoundationEssentials, the floor)", m["juice_hello"]!)
            row("  ratio (target ≤ 1.3×)", figures["version_ratio"]!, "×")
            row("juice-hello, a second copy (A/A)", m["juice_hello_copy"]!)
            row("  ratio to the first copy (the method's own bias; 1.00 ideal)", figures["floor_copy_ratio"]!, "×")
            row("peak RSS, juice stock (target ≤ 12 MB)", figures["juice_stock_peak_rss_mb"]!, "MB")
            row("peak RSS, sqlite3 select", figures["sqlite3_select_peak_rss_mb"]!, "MB")
            row("peak RSS, juice-hello", figures["juice_hello_peak_rss_mb"]!, "MB")
            row("peak RSS, juice order with webhook and command", figures["juice_order_delivery_peak_rss_mb"]!, "MB")
            row("commit → request at the endpoint, p50 (\(latencies.count) events)", figures["delivery_p50_ms"]!)
            row("commit → request at the endpoint, p99 (target ≤ 50 ms)", figures["delivery_p99_ms"]!)
            row("events left undelivered after the background deliveries", undelivered, "")
        }
        return figures
    }

    /// Waits until the webhook's and the command's cursors are at the journal's end and
    /// no process holds their leases: the background `juice deliver` an order started
    /// has finished. Gives up after 10 s (what is left shows as undelivered).
    private static func waitForBackgroundDelivery(_ store: String) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let lag = try sqliteScalar(
                store,
                "select case when (select count(*) from cursors) < 2 then 1 "
                    + "else (select max(sequence) from journal) - (select min(sequence) from cursors) end")
            if lag == 0, ["webhook", "command"].allSatisfy({ leaseIsFree(store + ".lease-" + $0) }) { return }
            // Between looks at another process's store and lease files: they send no
            // signal; bounded by the deadline above.
            usleep(1_000)
        }
    }

    /// Whether nobody holds the `flock` on `file` (a missing file is free).
    private static func leaseIsFree(_ file: String) -> Bool {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(descriptor, LOCK_UN)
        return true
    }

    /// The peak resident set size of one run, from `/usr/bin/time -f %M` (its child is
    /// forked from that small program, so only the command's own memory counts).
    private static func peakMegabytes(
        _ executable: String, _ arguments: [String], _ environment: [String: String], in directory: String
    ) throws -> Double {
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else { return .nan }
        let report = directory + "/rss.txt"
        try check(launch(time, ["-f", "%M", "-o", report, executable] + arguments, environment), "\(time) \(executable)")
        let text = try String(contentsOfFile: report, encoding: .utf8)
        return (Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan) / 1024
    }

    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    private static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : -1
    }

    /// A copy of the executable at `path` in `directory` (named after it), made now.
    private static func freshCopy(_ path: String, into directory: String, as name: String? = nil) throws -> String {
        let copy = directory + "/" + (name ?? "bin-" + (path.split(separator: "/").last.map(String.init) ?? "program"))
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return copy
    }

    /// `group` in the order round `round` runs it: its orders taken in turn (for a
    /// pair AB, BA; for three all six), so over that many rounds each command runs
    /// equally often in each place and after each of the others.
    static func order<Element>(_ group: [Element], round: Int) -> [Element] {
        let orders = permutations(group)
        return orders[round % orders.count]
    }

    /// Every order of `elements` (n! of them; the groups here have two or three).
    static func permutations<Element>(_ elements: [Element]) -> [[Element]] {
        guard elements.count > 1 else { return [elements] }
        return elements.indices.flatMap { index in
            var rest = elements
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    /// The first column of the first row `sql` gives, read by the sqlite3 shell.
    private static func sqliteScalar(_ path: String, _ sql: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = ["-cmd", ".timeout 5000", path, sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// What `juice order banana` commits: read the stock and the journal's end, take
    /// two bananas, append `juiceMade` and `stockChanged` in one immediate transaction.
    static func transaction(_ run: Int) -> String {
        let time = Int64(Date().timeIntervalSince1970 * 1000)
        let change = "bench-change-\(run)"
        let made = #"{"juice":"banana","count":1,"consumed":{"banana":2}}"#
        let changed = #"{"fruit":"banana","from":0,"to":0,"reason":"order"}"#
        return """
            PRAGMA busy_timeout = 5000;
            PRAGMA synchronous = FULL;
            BEGIN IMMEDIATE;
            SELECT fruit, quantity FROM stock;
            SELECT coalesce(max(sequence), 0) FROM journal;
            UPDATE stock SET quantity = quantity - 2 WHERE fruit = 'banana';
            INSERT INTO journal (sequence, id, time, type, change_id, event)
              VALUES ((SELECT coalesce(max(sequence), 0) + 1 FROM journal), lower(hex(randomblob(16))), \(time), 'juiceMade', '\(change)', '\(made)');
            INSERT INTO journal (sequence, id, time, type, change_id, event)
              VALUES ((SELECT coalesce(max(sequence), 0) + 1 FROM journal), lower(hex(randomblob(16))), \(time), 'stockChanged', '\(change)', '\(changed)');
            COMMIT;
            """
    }

    /// The `juice` executable built beside this one.
    static func juiceBinary() throws -> String { try siblingBinary("juice") }

    /// The executable `name` built beside this one.
    static func siblingBinary(_ name: String) throws -> String {
        let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: selfPath).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError.unavailable("\(path) (build it first: swift build -c release --product \(name))")
        }
        return path
    }

    /// Runs `executable` to completion with stdin, stdout and stderr on /dev/null and
    /// returns its exit status and wall time.
    ///
    /// A spawn and a blocking wait (`Spawning`), not Foundation's `Process`: on Linux
    /// `Process.waitUntilExit()` looks at the child every 50 ms, which rounded every
    /// short command up to that and hid the difference between commands.
    static func launch(_ executable: String, _ arguments: [String], _ environment: [String: String]) throws -> (Int32, Double) {
        let outcome = try launchMeasured(executable, arguments, environment)
        return (outcome.status, outcome.seconds)
    }

    /// `launch`, with the child's peak resident set size (kilobytes) and CPU seconds (user
    /// + system) from `wait4`; its stderr to the file `standardError` when given. The
    /// status is as a shell says it: the exit code, or 128 + the signal that killed it.
    static func launchMeasured(
        _ executable: String, _ arguments: [String], _ environment: [String: String], standardError: String? = nil
    ) throws -> (status: Int32, seconds: Double, peakKilobytes: Double, cpuSeconds: Double) {
        var launch = ProgramLaunch(executable: executable, arguments: arguments, environment: environment)
        if let standardError { launch.standardError = .file(standardError) }
        let start = ContinuousClock.now
        do throws(SpawnError) {
            let (termination, usage) = try waitForTermination(of: launch.spawn())
            let elapsed = ContinuousClock.now - start
            return (termination.shellStatus, Measure.seconds(elapsed), Double(usage.ru_maxrss), Measure.cpuSeconds(of: usage))
        } catch {
            throw BenchError.unavailable("\(executable) (\(error.description))")
        }
    }

    @discardableResult
    static func check(_ outcome: (Int32, Double), _ what: String) throws -> Double {
        guard outcome.0 == 0 else { throw BenchError.unavailable("\(what) (it exited with status \(outcome.0))") }
        return outcome.1
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}
