import Dispatch
import Foundation
import Locking

/// A thread-safe list that handlers append to.
final class Log<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])

    func append(_ item: Element) {
        items.withLock { $0.append(item) }
    }

    var all: [Element] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

/// A latch: `wait()` blocks until `open()` is called once; afterwards never blocks.
final class Gate: Sendable {
    private let group = DispatchGroup()

    init() { group.enter() }

    func open() { group.leave() }

    func wait() { group.wait() }
}

/// Counts calls; `waitUntil` waits a bounded time for a count.
final class Signal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    func fire() { semaphore.signal() }

    /// Waits for one `fire()`; `false` after `seconds` without one.
    func wait(seconds: Double = 30) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }
}

struct TestError: Error, Equatable {
    let value: Int
}

/// Runs `body(index)` on `count` real threads at once and waits for all of them.
/// Returns `false` if they did not all finish within `seconds` (a deadlock).
@discardableResult
func runThreads(_ count: Int, seconds: Double = 120, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
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
    return done.wait(timeout: .now() + seconds) == .success
}

/// Polls `condition` until it holds or `seconds` pass; returns its last value.
/// For counters that have no wake-up of their own (statistics).
func eventually(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while !condition() {
        if DispatchTime.now() > deadline { return condition() }
        usleep(1_000)
    }
    return true
}
