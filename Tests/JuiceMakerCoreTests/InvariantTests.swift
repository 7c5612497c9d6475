import JuiceMakerTesting
import JuiceTestSupport
import Testing
@testable import JuiceMakerCore

#if canImport(Glibc)
import Glibc
import Locking
#endif

/// Per-fruit sums, so each term of the stock equation can be compared.
private func + (lhs: FruitAmounts, rhs: FruitAmounts) -> FruitAmounts {
    var sum = lhs
    for fruit in Fruit.allCases { sum[fruit] += rhs[fruit] }
    return sum
}

private func - (lhs: FruitAmounts, rhs: FruitAmounts) -> FruitAmounts {
    var difference = lhs
    for fruit in Fruit.allCases { difference[fruit] -= rhs[fruit] }
    return difference
}

/// What one caller learned from the answers it got.
private struct Ledger: Sendable {
    var added = FruitAmounts()
    var removed = FruitAmounts()
    /// Set and draft edits: new minus old, per fruit.
    var edited = FruitAmounts()
    var consumed = FruitAmounts()
    var made = 0
    var insufficient = 0
    var restocks = 0

    static func + (lhs: Ledger, rhs: Ledger) -> Ledger {
        Ledger(
            added: lhs.added + rhs.added, removed: lhs.removed + rhs.removed, edited: lhs.edited + rhs.edited,
            consumed: lhs.consumed + rhs.consumed, made: lhs.made + rhs.made,
            insufficient: lhs.insufficient + rhs.insufficient, restocks: lhs.restocks + rhs.restocks)
    }
}

/// The events a synchronous subscriber heard on each committing thread: a call's own
/// events, since synchronous handlers run on the caller's thread before it returns.
private final class EventsByThread: Sendable {
    private let heard = Locked<[UInt: [EventEnvelope]]>([:])

    func record(_ envelope: EventEnvelope) {
        let thread = UInt(pthread_self())
        heard.withLock { $0[thread, default: []].append(envelope) }
    }

    func take() -> [EventEnvelope] {
        let thread = UInt(pthread_self())
        return heard.withLock { $0.removeValue(forKey: thread) ?? [] }
    }
}

/// What went wrong on the worker threads, reported once they are done.
private final class Problems: Sendable {
    private let list = Locked<[String]>([])

    func record(_ text: String) { list.withLock { $0.append(text) } }

    var all: [String] { list.withLock { $0 } }
}

@Suite("Invariants under concurrency", .tags(.unit))
struct InvariantTests {
    private static let threads = 8
    private static let operationsPerThread = 1_250

    /// One caller's share of the random operations.
    private static func work(
        _ maker: JuiceMaker, own: EventsByThread, seed: UInt64, problems: Problems
    ) -> Ledger {
        var random = SeededGenerator(seed: seed)
        var ledger = Ledger()
        func problem(_ text: String) { problems.record(text) }
        for _ in 0..<operationsPerThread {
            let fruit = Fruit.allCases.randomElement(using: &random) ?? .kiwi
            _ = own.take()
            do {
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<40:
                    let juice = Juice.allCases.randomElement(using: &random) ?? .kiwi
                    let count = Int.random(in: 1...2, using: &random)
                    switch try maker.make(juice, count: count) {
                    case .made(let consumed):
                        if consumed != juice.recipe.multiplied(by: count) { problem("\(juice)×\(count) consumed \(consumed)") }
                        ledger.consumed = ledger.consumed + consumed
                        ledger.made += 1
                    case .insufficient:
                        ledger.insufficient += 1
                    }
                case 40..<60:
                    let amount = Int.random(in: 1...8, using: &random)
                    _ = try maker.add(amount, of: fruit)
                    ledger.added[fruit] += amount
                    ledger.restocks += 1
                case 60..<75:
                    let amount = Int.random(in: 1...4, using: &random)
                    do {
                        _ = try maker.remove(amount, of: fruit)
                        ledger.removed[fruit] += amount
                    } catch .notEnoughToRemove {}
                case 75..<85:
                    let quantity = Int.random(in: 0...20, using: &random)
                    let stock = try maker.set([fruit: quantity])
                    if stock[fruit] != quantity { problem("set \(fruit) to \(quantity) returned \(stock[fruit])") }
                    // `set` answers with the new stock only; the old value is in the
                    // event this call produced, heard on this thread.
                    for change in own.take().compactMap(\.stockChange) {
                        if change.fruit != fruit || change.to != quantity || change.reason != .edit {
                            problem("set \(fruit) to \(quantity) produced \(change)")
                        }
                        ledger.edited[fruit] += change.to - change.from
                    }
                default:
                    var draft = try maker.beginEdit()
                    for _ in 0..<Int.random(in: 1...3, using: &random) {
                        let target = Fruit.allCases.randomElement(using: &random) ?? .mango
                        switch Int.random(in: 0..<3, using: &random) {
                        case 0: try draft.add(Int.random(in: 1...5, using: &random), of: target)
                        case 1:
                            do { try draft.remove(Int.random(in: 1...3, using: &random), of: target) } catch .notEnoughToRemove {}
                        default: try draft.set(target, to: Int.random(in: 0...20, using: &random))
                        }
                    }
                    do {
                        _ = try maker.apply(draft)
                        for change in draft.changes { ledger.edited[change.fruit] += change.to - change.from }
                    } catch .draftConflict {}
                }
            } catch {
                problem("unexpected \(error)")
            }
        }
        return ledger
    }

    @Test("10,000 random operations on 8 threads keep every invariant")
    func randomOperations() throws {
        let initial = Stock(repeating: 10)
        let store = InMemoryStore(initialStock: initial)
        let maker = JuiceMaker(store: store)
        let recorder = try RecordingSubscriber("sync", subscribingTo: maker)
        let queued = try RecordingSubscriber("queued", subscribingTo: maker, delivery: .queued(capacity: 1_000_000))
        let own = EventsByThread()
        _ = try maker.subscribe("own") { own.record($0) }
        let ledgers = Locked<[Ledger]>([])
        let problems = Problems()

        let finished = runThreads(Self.threads) { index in
            let ledger = Self.work(maker, own: own, seed: 0x5EED + UInt64(index), problems: problems)
            ledgers.withLock { $0.append(ledger) }
        }
        try #require(finished as Bool)
        #expect(problems.all.isEmpty, "\(problems.all.prefix(5))")
        let caller = ledgers.withLock { $0 }.reduce(Ledger(), +)
        let final = try maker.stock()
        let journal = try store.events(after: 0, limit: Int.max)

        // The journal has no gaps, and every event reached each subscriber exactly once, in order.
        #expect(journal.map(\.sequence).elementsEqual(1...Int64(journal.count)))
        #expect(recorder.events == journal)
        #expect(maker.waitUntilIdle(timeout: .seconds(120)))
        #expect(queued.events == journal)
        #expect(Set(journal.map(\.id)).count == journal.count)

        // Replaying the journal: every change starts where the last ended, never below zero.
        var running = initial
        var fromJournal = Ledger()
        var consumedByRecipes = FruitAmounts()
        for envelope in journal {
            switch envelope.event {
            case let .stockChanged(fruit, from, to, reason):
                #expect(to >= 0 && from >= 0, "sequence \(envelope.sequence)")
                #expect(from == running[fruit], "sequence \(envelope.sequence) starts at \(from), stock was \(running[fruit])")
                running[fruit] = to
                switch reason {
                case .order: fromJournal.consumed[fruit] += from - to
                case .restock: fromJournal.added[fruit] += to - from
                case .edit: fromJournal.edited[fruit] += to - from
                }
            case let .juiceMade(juice, count, consumed):
                fromJournal.made += 1
                #expect(consumed == juice.recipe.multiplied(by: count))
                consumedByRecipes = consumedByRecipes + (juice.recipe.multiplied(by: count) ?? .zero)
            case .orderFailed:
                fromJournal.insufficient += 1
            }
        }
        #expect(running == final)
        #expect(Fruit.allCases.allSatisfy { final[$0] >= 0 })

        // Each term, from the callers' answers and from the journal, agrees.
        #expect(caller.added == fromJournal.added)
        #expect(caller.consumed == fromJournal.consumed)
        #expect(caller.edited - caller.removed == fromJournal.edited)
        #expect(caller.made == fromJournal.made)
        #expect(caller.insufficient == fromJournal.insufficient)
        #expect(consumedByRecipes == fromJournal.consumed)
        #expect(initial + caller.added - caller.removed + caller.edited - caller.consumed == final)
        #expect(initial + fromJournal.added + fromJournal.edited - fromJournal.consumed == final)
        #expect(caller.made + caller.insufficient > 1_000, "the run made too few orders to prove anything")
        #expect(caller.made > 100)
    }
}
