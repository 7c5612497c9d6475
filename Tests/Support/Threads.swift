import Dispatch
import Foundation
import Locking

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
