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
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try condition()
}
