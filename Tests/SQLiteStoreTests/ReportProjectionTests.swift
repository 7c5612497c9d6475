import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// The report's hourly projection: folded from the journal on demand, incrementally,
/// with events of unknown types counted rather than failing.
@Suite(.tags(.unit), .offPool) struct ReportProjectionTests {
    private static let allHours: (Int64, Int64) = (0, 1 << 40)

    private func rows(_ snapshot: ReportSnapshot) -> Set<String> {
        Set(snapshot.rows.map { "\($0.hour) \($0.kind.rawValue) \($0.item) \($0.fruit) \($0.events) \($0.amount)" })
    }

    @Test func salesLostSalesAndConsumptionAreSummedPerHour() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"), initialStock: Stock(repeating: 10))
        let maker = JuiceMaker(store: store)
        _ = try maker.make(.mangoKiwi)
        _ = try maker.make(.mangoKiwi, count: 2)
        _ = try maker.make(.strawberry)  // 16 strawberries needed, 10 there: fails
        let snapshot = try store.report(firstHour: Self.allHours.0, lastHour: Self.allHours.1)
        #expect(snapshot.throughSequence == (try store.lastSequence()))
        #expect(!snapshot.journalIsEmpty)
        #expect(snapshot.stock == (try store.stock()))
        // The whole set of sums, over every hour: nothing more (a failed order counted
        // as a sale, fruit it did not use), nothing less.
        #expect(
            totals(snapshot) == [
                "sale mango-kiwi": [2, 3], "lostSale strawberry": [1, 1], "shortage strawberry strawberry": [1, 6],
                "consumed kiwi": [2, 3], "consumed mango": [2, 6],
            ])
    }

    /// Each row's `kind item [fruit]` → [events, amount], summed over the hours.
    private func totals(_ snapshot: ReportSnapshot) -> [String: [Int]] {
        snapshot.rows.reduce(into: [:]) { totals, row in
            let key = "\(row.kind) \(row.item)" + (row.fruit.isEmpty ? "" : " \(row.fruit)")
            let sum = totals[key] ?? [0, 0]
            totals[key] = [sum[0] + row.events, sum[1] + row.amount]
        }
    }

    /// Another connection holds the write lock: the report folds in memory instead of
    /// waiting, with the same rows, and stores nothing; the next one folds them.
    @Test func aHeldWriteLockIsFoldedAroundNotWaitedFor() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try SQLiteStore(path: path, initialStock: Stock(repeating: 20))
        let maker = JuiceMaker(store: store)
        for juice in Juice.allCases { _ = try? maker.make(juice, count: 2) }
        let lock = StoreWriteLock(try SQLiteStore(path: path))
        #expect(lock.waitUntilHeld())
        let aside = try store.report(firstHour: Self.allHours.0, lastHour: Self.allHours.1)
        #expect(try RawDatabase(path).value("SELECT count(*) FROM report_hourly") == "0", "nothing folded into the store")
        lock.release()
        // A write that waits out the lock (a cursor: no event, no report row), so the next report can fold.
        try store.setCursor(named: "after-the-lock", to: 0)
        let folded = try store.report(firstHour: Self.allHours.0, lastHour: Self.allHours.1)
        #expect(rows(aside) == rows(folded))
        #expect(aside.stock == folded.stock && aside.throughSequence == folded.throughSequence)
        #expect(try RawDatabase(path).value("SELECT count(*) FROM report_hourly") == "\(folded.rows.count)")
    }

    @Test func eventsOfUnknownTypesAreCountedNotFatal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try SQLiteStore(path: path)
        _ = try JuiceMaker(store: store).make(.banana)
        let next = try store.lastSequence() + 1
        try RawDatabase(path).execute(
            """
            INSERT INTO journal (sequence, id, time, type, change_id, event) VALUES
              (\(next), 'newer-1', 1795240800000, 'juicemaker.juice.spilled', 'c1', '{"data":{"juice":"banana","count":9}}'),
              (\(next + 1), 'newer-2', 1795240800000, 'juicemaker.juice.spilled', 'c2', '{"data":{}}'),
              (\(next + 2), 'odd-1', 1795240800000, 'juicemaker.juice.made', 'c3', '{"data":{"count":1}}')
            """)
        let snapshot = try store.report(firstHour: Self.allHours.0, lastHour: Self.allHours.1)
        #expect(snapshot.throughSequence == next + 2)
        let unknown = snapshot.rows.filter { $0.kind == .unknown }
        #expect(unknown.map(\.item) == ["juicemaker.juice.spilled"])
        #expect(unknown.map(\.events) == [2])
        #expect(snapshot.rows.filter { $0.kind == .sale && $0.item == "banana" }.map(\.amount) == [1], "the spilled juice is not a sale")
        #expect(snapshot.rows.filter { $0.kind == .sale && $0.item == "?" }.map(\.events) == [1], "a sale naming no juice is kept apart")
    }

    @Test func foldingInStepsEqualsFoldingAtOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try SQLiteStore(path: path, initialStock: Stock(repeating: 40))
        let maker = JuiceMaker(store: store)
        var seen: Set<String> = []
        for juice in Juice.allCases {
            _ = try maker.make(juice)
            _ = try maker.make(juice, count: 3)
            seen = rows(try store.report(firstHour: Self.allHours.0, lastHour: Self.allHours.1))
        }
        // Forget the projection's cursor: the next report folds the whole journal again.
        try RawDatabase(path).execute("DELETE FROM report_state")
        let again = try store.report(firstHour: Self.allHours.0, lastHour: Self.allHours.1)
        #expect(rows(again) == seen)
        // Nothing new: reading again changes nothing.
        #expect(rows(try store.report(firstHour: Self.allHours.0, lastHour: Self.allHours.1)) == seen)
    }

    @Test func onlyTheHoursAskedForAreRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"))
        _ = try JuiceMaker(store: store).make(.kiwi)
        let hour = Int64(Date().timeIntervalSince1970 / 3600)
        #expect(try store.report(firstHour: hour - 1, lastHour: hour + 1).rows.count == 2)
        #expect(try store.report(firstHour: hour + 1, lastHour: hour + 5).rows.isEmpty)
    }
}
