import EventBus
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
import Locking

/// What an order came to: the typed answer to the one who asked (the delegate side).
public enum OrderResult: Sendable, Equatable {
    /// The juices were made; `consumed` is the fruit they took.
    case made(consumed: FruitAmounts)
    /// Not enough fruit; `shortages` says how much of each fruit is missing.
    /// Nothing was consumed.
    case insufficient(shortages: FruitAmounts)
}

/// An order's answer and the stock it left.
public struct OrderReceipt: Sendable, Equatable {
    public let result: OrderResult
    /// The stock right after the order's transaction.
    public let stock: Stock
}

/// The one service the outside talks to.
///
/// Every method is atomic against the injected store: it reads, decides and writes
/// the stock and the journal in one step, then publishes the committed events on
/// `bus`, in journal order, before it returns. Stock is never negative and never
/// partly consumed, also when several threads (or processes sharing a store) call it
/// at once. Refused requests throw `JuiceMakerError` and change nothing.
///
/// A synchronous handler may call back into its maker (an auto-restock plugin, say):
/// the nested change commits in its own transaction, and its events are delivered
/// after the current event has reached every subscriber (see `EventBus`).
///
/// **Every event was journaled first, by construction.** The bus and the store are
/// private: the only way onto the bus is a change committed here, and the only way
/// to change stock is a method here. So nobody can publish an event that is not in
/// the journal, or commit around the change lock, and the lock order is one-way:
/// the change lock, then the bus's. This is the whole of what a plugin gets (through
/// `PluginHost`): subscribe, read, and call these commands.
public final class JuiceMaker: Sendable {
    /// The broadcast side: everyone who is not the caller hears events here.
    private let bus: EventBus<EventEnvelope>
    /// Where stock and journal live.
    private let store: any StockStore
    /// The CloudEvents `source` of the events this maker commits.
    public let source: String
    /// Serialises changes in this process, so events reach the bus in journal order.
    private let changes = ChangeLock()

    /// A maker over `store`, with a bus of its own.
    ///
    /// - Parameters:
    ///   - store: where the stock and the journal live; every change commits both in
    ///     one of its transactions.
    ///   - source: the CloudEvents `source` of the events this maker commits.
    ///   - subscriberFailures: hears every error a subscriber's handler throws, with the
    ///     subscriber's name, on the delivering thread; must not block.
    public init(
        store: any StockStore, source: String = EventEnvelope.defaultSource,
        subscriberFailures: @escaping @Sendable (SubscriberFailure) -> Void = { _ in }
    ) {
        self.store = store
        self.bus = EventBus(errorSink: subscriberFailures)
        self.source = source
    }

    /// Waits until every queued subscriber has handled what it was given.
    ///
    /// - Returns: `true` once they all have; `false` if `timeout` passed first. Must
    ///   not be called from a queued handler of this maker.
    public func waitUntilIdle(timeout: Duration) -> Bool {
        bus.drain(timeout: timeout)
    }

    /// Every live subscriber's counters, in subscription order. Never waits for a handler.
    public func subscriberStatistics() -> [SubscriberStatistics] {
        bus.statistics()
    }

    // MARK: Queries

    /// The stock now.
    public func stock() throws(JuiceMakerError) -> Stock {
        do { return try store.stock() } catch { throw .store(error) }
    }

    // MARK: Orders

    /// Makes `count` of `juice` if the stock allows all of them, else nothing.
    /// A count below 1, or one whose recipe needs more of a fruit than
    /// `Stock.maximumQuantity`, throws `invalidCount` and journals nothing.
    ///
    /// Events: `juiceMade` then one `stockChanged` (reason `order`) per fruit used;
    /// or one `orderFailed`. All share one change id.
    ///
    /// `make` and `order` are one operation (`make` is `order(…).result`). `make` is
    /// the delegate-style answer most callers want (the screens, plugins, the bench)
    /// and may be discarded; `order` adds the stock for the one
    /// caller that shows it (`juice order`). Neither costs more than the other.
    @discardableResult
    public func make(_ juice: Juice, count: Int = 1) throws(JuiceMakerError) -> OrderResult {
        try order(juice, count: count).result
    }

    /// `make`, also answering with the stock the order left, as its own transaction
    /// left it (no second read; another process may change the stock right after).
    public func order(_ juice: Juice, count: Int = 1) throws(JuiceMakerError) -> OrderReceipt {
        // More of one fruit than the machine can ever hold can never be made: a bad
        // value, not a shortage to journal.
        guard count >= 1, let needed = juice.recipe.multiplied(by: count),
            Fruit.allCases.allSatisfy({ needed[$0] <= Stock.maximumQuantity })
        else { throw .invalidCount(count) }
        var result = OrderResult.made(consumed: needed)
        let stock = try commit { current, events in
            var shortages = FruitAmounts()
            for fruit in Fruit.allCases where needed[fruit] > current[fruit] {
                shortages[fruit] = needed[fruit] - current[fruit]
            }
            guard shortages.isZero else {
                result = .insufficient(shortages: shortages)
                events.append(.orderFailed(juice: juice, count: count, shortages: shortages))
                return current
            }
            events.append(.juiceMade(juice: juice, count: count, consumed: needed))
            var stock = current
            for fruit in Fruit.allCases where needed[fruit] > 0 {
                stock[fruit] -= needed[fruit]
                events.append(.stockChanged(fruit: fruit, from: current[fruit], to: stock[fruit], reason: .order))
            }
            return stock
        }
        return OrderReceipt(result: result, stock: stock)
    }

    // MARK: Stock edits

    /// Adds `amount` (≥ 1) of `fruit`. Event: `stockChanged` with reason `restock`.
    @discardableResult
    public func add(_ amount: Int, of fruit: Fruit) throws(JuiceMakerError) -> Stock {
        try edit(reason: .restock) { draft throws(JuiceMakerError) in try draft.add(amount, of: fruit) }
    }

    /// Removes `amount` (≥ 1, at most what there is) of `fruit`. Reason `edit`.
    @discardableResult
    public func remove(_ amount: Int, of fruit: Fruit) throws(JuiceMakerError) -> Stock {
        try edit(reason: .edit) { draft throws(JuiceMakerError) in try draft.remove(amount, of: fruit) }
    }

    /// Sets each listed fruit to its quantity, all in one change. Reason `edit`.
    @discardableResult
    public func set(_ quantities: [Fruit: Int]) throws(JuiceMakerError) -> Stock {
        try edit(reason: .edit) { draft throws(JuiceMakerError) in
            for fruit in Fruit.allCases {
                if let quantity = quantities[fruit] { try draft.set(fruit, to: quantity) }
            }
        }
    }

    /// Starts a draft from the stock now. Nothing is stored until `apply`.
    public func beginEdit() throws(JuiceMakerError) -> StockDraft {
        StockDraft(base: try stock())
    }

    /// Commits a draft as one change: one `stockChanged` (reason `edit`) per fruit it
    /// changed. Throws `draftConflict` (and changes nothing) if any of those fruits
    /// changed since the draft began.
    @discardableResult
    public func apply(_ draft: StockDraft) throws(JuiceMakerError) -> Stock {
        let changes = draft.changes
        return try commit { current, events throws(JuiceMakerError) in
            let conflicts = changes.map(\.fruit).filter { current[$0] != draft.base[$0] }
            guard conflicts.isEmpty else { throw .draftConflict(conflicts) }
            var stock = current
            for change in changes {
                stock[change.fruit] = change.to
                events.append(.stockChanged(fruit: change.fruit, from: change.from, to: change.to, reason: .edit))
            }
            return stock
        }
    }

    /// Applies `body` to a draft of the current stock inside the transaction.
    private func edit(reason: StockChangeReason, _ body: (inout StockDraft) throws(JuiceMakerError) -> Void) throws(JuiceMakerError) -> Stock {
        try commit { current, events throws(JuiceMakerError) in
            var draft = StockDraft(base: current)
            try body(&draft)
            for change in draft.changes {
                events.append(.stockChanged(fruit: change.fruit, from: change.from, to: change.to, reason: reason))
            }
            return draft.quantities
        }
    }

    // MARK: Subscribing

    /// Subscribes to this maker's events, optionally receiving the stock first.
    ///
    /// When `currentStock` is given it is called once, before this returns, with the
    /// stock as of the last change this maker published; every change after it
    /// reaches `handler`. No change falls between the two (the initial-value race).
    public func subscribe(
        _ name: String,
        delivery: Delivery = .synchronous,
        kinds: Set<EventKind>? = nil,
        currentStock: (@Sendable (Stock) -> Void)? = nil,
        handler: @escaping @Sendable (EventEnvelope) throws -> Void
    ) throws(JuiceMakerError) -> Subscription {
        var filter: (@Sendable (EventEnvelope) -> Bool)?
        if let kinds {
            // A bit per kind: the filter runs for every event on the order path, and
            // hashing a `Set<EventKind>` (its String raw values) cost more than the
            // rest of the delivery.
            let mask = kinds.reduce(0) { $0 | $1.bit }
            filter = { mask & $0.event.kind.bit != 0 }
        }
        let outcome = changes.withLock { () -> Result<Subscription, JuiceMakerError> in
            if let currentStock {
                do throws(StoreError) {
                    currentStock(try store.stock())
                } catch {
                    return .failure(.store(error))
                }
            }
            return .success(bus.subscribe(name, delivery: delivery, where: filter, handler: handler))
        }
        return try outcome.get()
    }

    // MARK: The one write path

    /// Builds the events of one change.
    struct ChangeEvents {
        fileprivate let nextSequence: Int64
        fileprivate let changeID: EventID
        fileprivate let time: Date
        fileprivate let milliseconds: UInt64
        fileprivate let source: String
        fileprivate var ids: EventIDGenerator
        fileprivate(set) var envelopes: [EventEnvelope]

        mutating func append(_ event: JuiceMakerEvent) {
            envelopes.append(
                EventEnvelope(
                    sequence: nextSequence + Int64(envelopes.count),
                    id: ids.next(unixMilliseconds: milliseconds),
                    time: time, source: source, changeID: changeID, event: event))
        }
    }

    /// Runs `decide` inside a store transaction, then publishes what it committed.
    @discardableResult
    private func commit(
        _ decide: (Stock, inout ChangeEvents) throws(JuiceMakerError) -> Stock
    ) throws(JuiceMakerError) -> Stock {
        let outcome = changes.withLock { () -> Result<Stock, any Error> in
            // The generator is taken out for the change and put back before `publish`,
            // where a synchronous handler may make a change of its own.
            var generator = EventIDGenerator()
            changes.exchangeIDs(&generator)
            let committed: StoreChange
            do {
                committed = try store.commit { current, position in
                    // Millisecond precision: what the wire format carries, so an event
                    // decoded from JSON equals the one committed.
                    let milliseconds = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
                    let time = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
                    // Ids continue from the journal's last one, which another process
                    // may have written a moment ago: ids increase in journal order.
                    let changeID = generator.next(unixMilliseconds: milliseconds, after: position.lastEventID)
                    var events = ChangeEvents(
                        nextSequence: position.nextSequence, changeID: changeID,
                        time: time, milliseconds: milliseconds, source: source, ids: EventIDGenerator(),
                        envelopes: [])
                    // Moved, not copied: a copy would share the pool of random words
                    // and the first id would copy all 4 KiB of it.
                    swap(&events.ids, &generator)
                    // An order writes at most 1 + 5 events, an edit at most 5.
                    events.envelopes.reserveCapacity(Fruit.allCases.count + 1)
                    let stock = try decide(current, &events)
                    swap(&events.ids, &generator)
                    return StoreChange(stock: stock, events: events.envelopes)
                }
            } catch {
                changes.exchangeIDs(&generator)
                return .failure(error)
            }
            changes.exchangeIDs(&generator)
            bus.publish(contentsOf: committed.events)
            return .success(committed.stock)
        }
        switch outcome {
        case .success(let stock):
            return stock
        case .failure(let error as JuiceMakerError):
            throw error
        case .failure(let error as StoreError):
            throw .store(error)
        case .failure(let error):
            throw .store(StoreError(.unexpected("\(error)"), path: "?"))
        }
    }
}
