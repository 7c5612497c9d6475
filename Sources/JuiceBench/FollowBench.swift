import Foundation
import JuiceMakerCore
import Locking
import SQLiteStore

/// `juice-bench follow`: how a waiting reader (what `juice deliver --follow` and
/// `juice watch` wait in) sees commits made by another process, and what waiting
/// costs while nothing happens.
///
/// - Latency: the other process is the `sqlite3` shell, fed one order's transaction
///   (the SQL of `CLIBench.transaction`) at a time on its stdin; the time runs from
///   writing the transaction to the pipe until `SQLiteStore.waitForEvents` returns in
///   this process, so it is an upper bound of commit → seen (it includes the shell
///   reading, parsing and committing). Commits are spaced by a random pause, so they
///   fall anywhere in the waiter's look interval. Target: p99 ≤ 100 ms.
/// - Idle CPU: user + system time (`getrusage(RUSAGE_THREAD)`) of one waiter over a
///   5 s wait with no commit, and of the whole process with eight waiters at once (a
///   follower of eight subscribers). Target: < 1% of a core.
///
/// Figures: `follow_latency_p50_ms`, `follow_latency_p99_ms`,
/// `follow_idle_cpu_percent`, `follow_idle_cpu_percent_8_waiters`.
enum FollowBench {
    static let commits = 200
    static let idleWindow = Duration.seconds(5)

    static func run(json: Bool) throws -> [(String, Double)] {
        try BenchDirectory.requireSQLiteShell()
        let directory = try BenchDirectory.make("follow")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/juice.db"
        let store = try SQLiteStore(path: path, initialStock: Stock(repeating: Stock.maximumQuantity))

        let latencies = try commitLatencies(store: store, path: path)
        let p50 = percentile(latencies, 0.50) * 1000
        let p99 = percentile(latencies, 0.99) * 1000
        let idleOne = idleCPUPercent(store: store, waiters: 1)
        let idleEight = idleCPUPercent(store: store, waiters: 8)
        if !json {
            print("follow: another process (sqlite3) commits, this one waits in SQLiteStore.waitForEvents")
            print(
                "  \("commit → seen, p50 (\(commits) commits)".padding(toLength: 42, withPad: " ", startingAt: 0))\(Measure.format(p50, decimals: 2).leftPadded(to: 8)) ms"
            )
            print(
                "  \("commit → seen, p99".padding(toLength: 42, withPad: " ", startingAt: 0))\(Measure.format(p99, decimals: 2).leftPadded(to: 8)) ms   target ≤ 100 ms"
            )
            print(
                "  \("idle waiter, CPU over 5 s".padding(toLength: 42, withPad: " ", startingAt: 0))\(Measure.format(idleOne, decimals: 3).leftPadded(to: 8)) %    target < 1% of a core"
            )
            print(
                "  \("8 idle waiters, process CPU over 5 s".padding(toLength: 42, withPad: " ", startingAt: 0))\(Measure.format(idleEight, decimals: 3).leftPadded(to: 8)) %    target < 1% of a core"
            )
        }
        return [
            ("follow_latency_p50_ms", p50), ("follow_latency_p99_ms", p99),
            ("follow_idle_cpu_percent", idleOne), ("follow_idle_cpu_percent_8_waiters", idleEight),
        ]
    }

    /// Seconds from handing each transaction to the shell until this process saw it.
    /// The waiter waits all along, as a follower does, so each commit lands at a
    /// random moment of its look interval.
    private static func commitLatencies(store: SQLiteStore, path: String) throws -> [Double] {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: CLIBench.shell)
        shell.arguments = ["-batch", path]
        let input = Pipe()
        shell.standardInput = input
        shell.standardOutput = FileHandle.nullDevice
        shell.standardError = FileHandle.nullDevice
        try shell.run()
        defer {
            try? input.fileHandleForWriting.close()
            shell.waitUntilExit()
        }
        // The newest sequence the waiter saw, and when.
        let seen = LockedCondition((sequence: try store.lastSequence(), at: ContinuousClock.now, stop: false))
        let waiter = Thread {
            var sequence = seen.withLock { $0.sequence }
            while !seen.withLock({ $0.stop }) {
                guard (try? store.waitForEvents(after: sequence, timeout: .seconds(1))) == true,
                    let last = try? store.lastSequence()
                else { continue }
                sequence = last
                seen.change { $0 = (last, .now, $0.stop) }
            }
        }
        waiter.start()
        defer { seen.change { $0.stop = true } }
        var latencies: [Double] = []
        var generator = SystemRandomNumberGenerator()
        for round in 0..<commits {
            let last = seen.withLock { $0.sequence }
            // Pacing, not waiting: the next commit lands anywhere in the look interval.
            usleep(UInt32.random(in: 2_000...40_000, using: &generator))
            let sql = Data((CLIBench.transaction(round) + "\n").utf8)
            let started = ContinuousClock.now
            input.fileHandleForWriting.write(sql)
            guard seen.wait(until: .now + .seconds(10), for: { $0.sequence > last }) else {
                throw BenchError.unavailable("follow bench: commit \(round) of the sqlite3 shell was not seen within 10 s")
            }
            latencies.append(Measure.seconds(seen.withLock { $0.at } - started))
        }
        return latencies
    }

    /// Percent of one core used while `waiters` threads wait `idleWindow` for an event
    /// that never comes: the one waiter's own thread time, or with several the process's.
    private static func idleCPUPercent(store: SQLiteStore, waiters: Int) -> Double {
        let last = (try? store.lastSequence()) ?? 0
        let used = Locked(0.0)
        let done = DispatchSemaphore(value: 0)
        let processBefore = Measure.cpuSeconds(Measure.processUsage)
        let started = ContinuousClock.now
        for _ in 0..<waiters {
            let thread = Thread {
                let before = Measure.cpuSeconds(Measure.threadUsage)
                _ = try? store.waitForEvents(after: last, timeout: idleWindow)
                let after = Measure.cpuSeconds(Measure.threadUsage)
                used.withLock { $0 += after - before }
                done.signal()
            }
            thread.start()
        }
        for _ in 0..<waiters { done.wait() }
        let wall = Measure.seconds(ContinuousClock.now - started)
        let cpu = waiters == 1 ? used.withLock { $0 } : Measure.cpuSeconds(Measure.processUsage) - processBefore
        return cpu / wall * 100
    }

    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }
}
