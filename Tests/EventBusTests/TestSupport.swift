import Dispatch
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

/// Counts calls; `wait` waits a bounded time for one.
final class Signal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    func fire() { semaphore.signal() }

    /// Waits for one `fire()`; `false` after `limit` without one.
    func wait(within limit: Duration = .seconds(30)) -> Bool {
        semaphore.wait(timeout: TimeSpan(limit).deadline(after: .now())) == .success
    }
}

struct TestError: Error, Equatable {
    let value: Int
}
