import Foundation
import JuiceMakerCore

/// Holds a store's write lock from this process, as another `juice` process might: a
/// commit whose `decide` waits until `release`.
package final class StoreWriteLock: Sendable {
    private let held = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    package init(_ store: any StockStore) {
        let held = held
        let released = released
        Thread {
            _ = try? store.commit { stock, _ in
                held.signal()
                released.wait()
                return StoreChange(stock: stock, events: [])
            }
        }.start()
    }

    /// Whether the lock was taken within 30 s (only a hang takes that long).
    package func waitUntilHeld() -> Bool { held.wait(timeout: .now() + 30) == .success }

    package func release() { released.signal() }
}
