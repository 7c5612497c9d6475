import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// The store's totals (what the metrics read): the same as folding every event, also
/// after the store is closed and opened again, and read-only; and the time each
/// durable subscriber last delivered, kept with its cursor.
@Suite(.tags(.unit), .offPool) struct JournalTotalsTests {
    /// Seeded orders, restocks and failures in rounds, the store reopened between
    /// rounds: after each, the SQLite totals equal the events folded in Swift and the
    /// in-memory store's totals of the same changes, and fruit consumed is the recipes
    /// of the juices made.
    @Test func totalsEqualTheFoldedJournalAcrossReopens() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let memory = InMemoryStore(initialStock: Stock(repeating: 40))
        var generator = SeededGenerator(seed: 0x70_7a15)
        for round in 0..<4 {
            let store = try SQLiteStore(path: path, initialStock: Stock(repeating: 40))
            let start = generator
            for maker in [JuiceMaker(store: store), JuiceMaker(store: memory)] {
                var copy = start
                for _ in 0..<40 {
                    let juice = Juice.allCases[Int(copy.next() % UInt64(Juice.allCases.count))]
                    _ = try maker.make(juice, count: 1 + Int(copy.next() % 2))
                    if copy.next() % 5 == 0 { try maker.add(7, of: Fruit.allCases[Int(copy.next() % 5)]) }
                }
                generator = copy
            }
            let totals = try store.journalTotals()
            let events = try store.events(after: 0, limit: Int.max)
            var expected = JournalTotals(folding: events, stock: try store.stock())
            expected.storeBytes = totals.storeBytes
            #expect(totals == expected, "round \(round)")
            var inMemory = try memory.journalTotals()
            inMemory.storeBytes = totals.storeBytes
            #expect(inMemory == totals, "round \(round)")
            #expect(totals.events == (try store.lastSequence()))
            #expect((totals.storeBytes ?? 0) > 0)
            for fruit in Fruit.allCases {
                let fromRecipes = Juice.allCases.reduce(0) { $0 + $1.recipe[fruit] * (totals.juicesMade[$1.id] ?? 0) }
                #expect((totals.fruitConsumed[fruit.id] ?? 0) == fromRecipes)
            }
        }
        let readOnly = try SQLiteStore(path: path, options: .init(access: .readOnly))
        var again = try readOnly.journalTotals()
        let written = try SQLiteStore(path: path).journalTotals()
        again.storeBytes = written.storeBytes
        #expect(again == written)
    }

    /// Another connection holds the write lock: the totals are read around it, equal to
    /// the folded journal, and nothing is folded into the store while it is held.
    @Test func aHeldWriteLockIsReadAroundNotWaitedFor() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try SQLiteStore(path: path, initialStock: Stock(repeating: 20))
        let maker = JuiceMaker(store: store)
        for juice in Juice.allCases { _ = try maker.make(juice, count: 2) }
        let lock = StoreWriteLock(try SQLiteStore(path: path))
        #expect(lock.waitUntilHeld())
        var aside = try store.journalTotals()
        #expect(try RawDatabase(path).value("SELECT count(*) FROM journal_totals") == "0", "nothing folded while the lock is held")
        lock.release()
        let folded = try store.journalTotals()
        aside.storeBytes = folded.storeBytes
        #expect(aside == folded)
        var expected = JournalTotals(folding: try store.events(after: 0, limit: Int.max), stock: try store.stock())
        expected.storeBytes = folded.storeBytes
        #expect(folded == expected)
    }

    /// The delivery time moves with the cursor, only forward, survives a reopen, and
    /// a cursor moved without one keeps the time it had.
    @Test func theLastDeliveryIsKeptWithTheCursor() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try SQLiteStore(path: path)
        #expect(try store.lastDelivery(for: "feed") == nil)
        try store.setCursor(named: "feed", to: 3, deliveredAt: 1_700_000_100.5)
        try store.setCursor(named: "feed", to: 2, deliveredAt: 1_700_000_000)
        try store.setCursor(named: "feed", to: 5)
        #expect(try store.cursor(named: "feed") == 5)
        #expect(try store.lastDelivery(for: "feed") == 1_700_000_100.5)
        #expect(try SQLiteStore(path: path).lastDelivery(for: "feed") == 1_700_000_100.5)
        #expect(try store.lastDelivery(for: "other") == nil)
    }
}
