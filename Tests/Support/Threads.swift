import Dispatch
import Foundation
import Locking
import Testing

/// Runs `body(index)` on `count` real threads at once and waits for all of them.
/// Returns `false` if they did not all finish within `limit` (a deadlock).
@discardableResult
package func runThreads(
    _ count: Int, within limit: Duration = .seconds(300), _ body: @escaping @Sendable (Int) -> Void
) -> Bool {
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            body(index)
            done.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    return done.wait(timeout: TimeSpan(limit).deadline(after: .now())) == .success
}

/// Polls `condition` until it holds or `limit` passes (only a hang reaches it);
/// returns whether it held. Not a timing assertion. Only for what sends this process
/// no signal (files another process writes, another process's threads and life):
/// whatever has a signal is waited for on it.
package func eventually(within limit: Duration = .seconds(120), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        // A kept sleep: the poll's interval, for what has no signal (see above).
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try condition()
}

/// `eventually` for a test that runs on a thread of its own (a synchronous test, a
/// helper thread): polls `condition` every `interval` until it holds or `limit` passes
/// (only a hang reaches it); returns whether it held. The same rule: only for what sends
/// this process no signal (another process's files and locks, a store's own checking
/// thread).
package func eventuallyOnThisThread(
    within limit: Duration = .seconds(120), every interval: Duration = .milliseconds(10), _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        // A kept sleep, as in `eventually`: the poll's interval, for what has no signal.
        usleep(UInt32(clamping: Int64(interval / .microseconds(1))))
    }
    return try condition()
}

/// A task executor with a thread of its own: the jobs of the tasks that prefer it run
/// there, one at a time, never on Swift's cooperative pool. `finish` lets the thread
/// end once it has nothing left to run; a job enqueued after that gets a thread of its
/// own, so no job is ever left unrun.
package final class ThreadExecutor: TaskExecutor {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var finished = false
        var running = true
    }

    private let queue = LockedCondition(Queue())

    package init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let taken = queue.change { queue -> Bool in
            guard queue.running else { return false }
            queue.jobs.append(job)
            return true
        }
        if !taken { Thread { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }.start() }
    }

    /// The thread ends once every job enqueued so far has run.
    package func finish() { queue.change { $0.finished = true } }

    private func run() {
        while true {
            _ = queue.wait(until: nil) { !$0.jobs.isEmpty || $0.finished }
            let jobs = queue.withLock { queue -> [UnownedJob] in
                defer { queue.jobs = [] }
                if queue.jobs.isEmpty { queue.running = false }
                return queue.jobs
            }
            if jobs.isEmpty { return }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

/// Runs each test (each case of a parameterized one) of the suite or test it is given
/// to on a thread of its own (`ThreadExecutor`) instead of Swift's cooperative pool,
/// which is as wide as the machine has cores and shared by every test of the run. For
/// tests that block for seconds: CPU-heavy work (recoveries, compactions, fault sweeps)
/// or waits on child processes. On the pool, two of them on two cores stall every other
/// suite (a loopback HTTP test's task then resumes minutes late). Every store suite
/// (SQLiteStoreTests) carries it: each of its tests blocks on files, and on a loaded
/// machine even a short one holds its thread for seconds. So does every `.process`
/// suite of the CLI, delivery and plugin tests: their tests wait for `juice` processes. The test stays a task, so its
/// issues are recorded as its own.
package struct OffPoolTrait: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let executor = ThreadExecutor(name: "juice.test.offpool")
        defer { executor.finish() }
        try await withTaskExecutorPreference(executor) {
            // The preference is only heeded when the task is next enqueued: this moves it
            // to the executor's thread before the test starts (a synchronous test never
            // suspends on its own).
            await Task.yield()
            try await function()
        }
    }
}

extension Trait where Self == OffPoolTrait {
    /// Each test on a thread of its own, off the cooperative pool (`OffPoolTrait`).
    package static var offPool: Self { OffPoolTrait() }
}
