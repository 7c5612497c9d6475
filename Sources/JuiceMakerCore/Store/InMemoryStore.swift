#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization
import Locking

/// The in-memory adapter for both ports, for tests and `--in-memory`.
///
/// One lock guards the stock and the journal together, so `commit` is atomic.
/// Nothing survives the process.
public final class InMemoryStore: StockStore, DeliveryJournal, JournalTotalsReading {
    private struct State {
        var stock: Stock
        var journal: [EventEnvelope] = []
        var cursors: [String: Int64] = [:]
        var deadLetters: [DeadLetter] = []
        var retryStates: [String: DeliveryRetryState] = [:]
        var deliveries: [String: Double] = [:]
    }

    private let state: Locked<State>
    /// Counts commits that added events; `waitForEvents` callers wait on it.
    private let arrivals = LockedCondition<UInt64>(0)
    private let waiters = Atomic<Int>(0)
    /// Subscribers whose delivery lease is held.
    private let leases = Locked<Set<String>>([])
    private static let path = ":memory:"

    /// A store holding `initialStock`, with an empty journal.
    public init(initialStock: Stock = Stock(repeating: Stock.defaultInitialQuantity)) {
        state = Locked(State(stock: initialStock))
    }

    public func stock() throws(StoreError) -> Stock {
        state.withLock { $0.stock }
    }

    public func commit(_ decide: (Stock, JournalPosition) throws -> StoreChange) throws -> StoreChange {
        let change = try state.withLock { state throws -> StoreChange in
            let position = JournalPosition(nextSequence: Int64(state.journal.count) + 1, lastEventID: state.journal.last?.id)
            let change = try decide(state.stock, position)
            if let fruit = Fruit.allCases.first(where: { change.stock[$0] < 0 }) {
                throw StoreError(.negativeQuantity(fruit), path: Self.path)
            }
            if let problem = position.problem(appending: change.events) {
                throw StoreError(problem, path: Self.path)
            }
            state.stock = change.stock
            state.journal.append(contentsOf: change.events)
            return change
        }
        // A waiter counts itself before it looks at the journal, and this looks at
        // the count after appending: one of the two sees the other.
        if !change.events.isEmpty, waiters.load(ordering: .sequentiallyConsistent) > 0 {
            arrivals.change { $0 &+= 1 }
        }
        return change
    }

    public func lastSequence() throws(StoreError) -> Int64 {
        state.withLock { Int64($0.journal.count) }
    }

    public func events(after sequence: Int64, limit: Int) throws(StoreError) -> [EventEnvelope] {
        state.withLock { state in
            let start = Int(clamping: max(0, sequence))
            guard start < state.journal.count, limit > 0 else { return [] }
            let end = start + min(limit, state.journal.count - start)
            return Array(state.journal[start..<end])
        }
    }

    /// Readers inside `waitForEvents` now (for the tests: a commit from then on wakes them).
    package var waitingReaders: Int { waiters.load(ordering: .sequentiallyConsistent) }

    /// Wakes at the commit that adds the event, or at `timeout`; never polls.
    public func waitForEvents(after sequence: Int64, timeout: Duration) throws(StoreError) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        waiters.add(1, ordering: .sequentiallyConsistent)
        defer { waiters.subtract(1, ordering: .sequentiallyConsistent) }
        // The journal is read under the condition's lock, so a commit's wake-up
        // cannot fall between the look and the wait.
        return arrivals.wait(until: deadline) { _ in
            state.withLock { Int64($0.journal.count) } > sequence
        }
    }

    /// A process-local lease: one runner per subscriber on this store.
    package func takeDeliveryLease(for subscriber: String) throws(StoreError) -> DeliveryLease? {
        guard leases.withLock({ $0.insert(subscriber).inserted }) else { return nil }
        let leases = leases
        return DeliveryLease { leases.withLock { _ = $0.remove(subscriber) } }
    }

    public func cursor(named name: String) throws(StoreError) -> Int64 {
        state.withLock { $0.cursors[name] ?? 0 }
    }

    public func setCursor(named name: String, to sequence: Int64) throws(StoreError) {
        state.withLock { state in
            state.cursors[name] = max(state.cursors[name] ?? 0, sequence)
        }
    }

    public func cursors() throws(StoreError) -> [String: Int64] {
        state.withLock { $0.cursors }
    }

    package func setCursor(named name: String, to sequence: Int64, deliveredAt: Double) throws(StoreError) {
        state.withLock { state in
            state.cursors[name] = max(state.cursors[name] ?? 0, sequence)
            state.deliveries[name] = max(state.deliveries[name] ?? deliveredAt, deliveredAt)
        }
    }

    package func lastDelivery(for subscriber: String) throws(StoreError) -> Double? {
        state.withLock { $0.deliveries[subscriber] }
    }

    /// Folded from the whole journal, under the lock that keeps it with the stock.
    package func journalTotals() throws(StoreError) -> JournalTotals {
        state.withLock { JournalTotals(folding: $0.journal, stock: $0.stock) }
    }

    package func recordDeadLetter(_ letter: DeadLetter) throws(StoreError) {
        state.withLock { $0.deadLetters.append(letter) }
    }

    package func deadLetters(for subscriber: String?) throws(StoreError) -> [DeadLetter] {
        state.withLock { state in
            state.deadLetters.filter { subscriber == nil || $0.subscriber == subscriber }
        }
    }

    package func removeDeadLetters(for subscriber: String, sequences: [Int64]) throws(StoreError) {
        let doomed = Set(sequences)
        state.withLock { state in
            state.deadLetters.removeAll { $0.subscriber == subscriber && doomed.contains($0.sequence) }
        }
    }

    package func retryState(for subscriber: String) throws(StoreError) -> DeliveryRetryState? {
        state.withLock { $0.retryStates[subscriber] }
    }

    package func setRetryState(_ retryState: DeliveryRetryState?, for subscriber: String) throws(StoreError) {
        state.withLock { $0.retryStates[subscriber] = retryState }
    }
}
