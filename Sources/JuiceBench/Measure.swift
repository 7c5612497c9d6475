import Foundation
import Locking

/// Timing helpers: each figure is the median of several rounds, in one process.
enum Measure {
    /// Nanoseconds per operation: `body(n)` performs `n` operations; median of `rounds`.
    static func nanosecondsPerOperation(operations: Int, rounds: Int = 7, _ body: (Int) -> Void) -> Double {
        body(max(1, operations / 10))  // warm-up
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            body(operations)
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            samples.append(Double(elapsed) / Double(operations))
        }
        return median(samples)
    }

    /// A duration (never negative here: an elapsed time) in seconds.
    static func seconds(_ duration: Duration) -> Double {
        TimeSpan(duration).totalSeconds
    }

    /// `RUSAGE_SELF` and `RUSAGE_THREAD` (Linux), which Glibc's module imports as an enum
    /// `getrusage` does not take.
    static let processUsage: Int32 = 0
    static let threadUsage: Int32 = 1

    /// CPU seconds (user + system) the process, or the calling thread, has used.
    static func cpuSeconds(_ who: Int32 = processUsage) -> Double {
        var usage = rusage()
        getrusage(who, &usage)
        return cpuSeconds(of: usage)
    }

    /// The CPU seconds (user + system) `usage` counts.
    static func cpuSeconds(of usage: rusage) -> Double {
        TimeSpan(usage.ru_utime).totalSeconds + TimeSpan(usage.ru_stime).totalSeconds
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func format(_ value: Double, decimals: Int = 1) -> String {
        String(format: "%.\(decimals)f", value)
    }

    /// A JSON object with keys in the given order.
    static func json(_ sections: [(String, [(String, Double)])]) -> String {
        let body = sections.map { name, members in
            "\"\(name)\":{" + members.map { "\"\($0.0)\":\(jsonNumber($0.1))" }.joined(separator: ",") + "}"
        }.joined(separator: ",")
        return "{" + body + "}"
    }

    private static func jsonNumber(_ value: Double) -> String {
        value.isFinite ? String(format: "%.2f", value) : "null"
    }

    /// Runs `body` to completion from synchronous bench code.
    @discardableResult
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T? {
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let value = await body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }
}
