import Foundation

/// `juice-bench cli`: the wall time of one `juice order banana` process (SQLite store,
/// logger writing text to a file, notifier writing to /dev/null) against the `sqlite3`
/// shell doing the same transaction on a copy of the same store file, measured in the
/// same run, alternating, median of many runs. Target: juice ≤ 3× the shell.
enum CLIBench {
    static let runs = 41
    static let shell = "/usr/bin/sqlite3"

    static func run(json: Bool) throws -> [String: Double] {
        let juice = try juiceBinary()
        guard FileManager.default.isExecutableFile(atPath: shell) else {
            throw BenchError.unavailable("\(shell) (apt-get install sqlite3)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("juice-bench-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/bench.json"
        try Data("""
            {"subscribers": [{"type": "logger", "format": "text", "path": "juice-maker.log"}, {"type": "cli-notifier"}]}
            """.utf8).write(to: URL(fileURLWithPath: config))
        let environment = [
            "HOME": directory, "XDG_STATE_HOME": directory + "/state", "XDG_CONFIG_HOME": directory + "/config",
            "PATH": "/usr/bin:/bin", "LANG": "en_US.UTF-8",
        ]
        let juiceStore = directory + "/juice.db"
        let shellStore = directory + "/shell.db"
        let juiceArguments = ["order", "banana", "--config", config, "--store", juiceStore]
        // Enough bananas for every run; the store is created by juice itself.
        try check(launch(juice, ["stock", "set", "banana=1000000"] + juiceArguments.suffix(4), environment), "juice stock set")
        try FileManager.default.copyItem(atPath: juiceStore, toPath: shellStore)

        var juiceTimes: [Double] = []
        var shellTimes: [Double] = []
        for run in 0..<runs {
            juiceTimes.append(try check(launch(juice, juiceArguments, environment), "juice order"))
            shellTimes.append(try check(launch(shell, [shellStore, transaction(run)], environment), "sqlite3"))
        }
        let juiceMedian = median(juiceTimes)
        let shellMedian = median(shellTimes)
        let figures = [
            "juice_order_process_ms": juiceMedian * 1000,
            "sqlite3_shell_process_ms": shellMedian * 1000,
            "ratio": juiceMedian / shellMedian,
        ]
        if !json {
            print("cli: one process each, median of \(runs) alternating runs")
            print("  juice order banana (SQLite, logger to file, notifier)  \(format(juiceMedian * 1000)) ms")
            print("  sqlite3 shell, the same transaction                    \(format(shellMedian * 1000)) ms")
            print("  ratio                                                  \(format(juiceMedian / shellMedian))× (target ≤ 3×)")
        }
        return figures
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
    static func juiceBinary() throws -> String {
        let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: selfPath).deletingLastPathComponent().appendingPathComponent("juice").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError.unavailable("\(path) (build it first: swift build -c release --product juice)")
        }
        return path
    }

    /// Runs one process to its end with output to /dev/null; returns its status and
    /// wall time in seconds.
    /// Runs `executable` to completion with stdin, stdout and stderr on /dev/null and
    /// returns its exit status and wall time.
    ///
    /// `posix_spawn` and a blocking `waitpid`, not Foundation's `Process`: on Linux
    /// `Process.waitUntilExit()` looks at the child every 50 ms, which rounded every
    /// short command up to about 50 ms and hid the difference between commands.
    static func launch(_ executable: String, _ arguments: [String], _ environment: [String: String]) throws -> (Int32, Double) {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var child: pid_t = 0
        let start = ContinuousClock.now
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw BenchError.unavailable("\(executable) (posix_spawn failed with error \(spawned))") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchError.unavailable("\(executable) (waitpid failed with error \(errno))") }
        }
        let elapsed = ContinuousClock.now - start
        // Exited normally: its exit code; killed by a signal: 128 + the signal, as a shell says.
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (code, Measure.seconds(elapsed))
    }

    @discardableResult
    static func check(_ outcome: (Int32, Double), _ what: String) throws -> Double {
        guard outcome.0 == 0 else { throw BenchError.unavailable("\(what) (it exited with status \(outcome.0))") }
        return outcome.1
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}
