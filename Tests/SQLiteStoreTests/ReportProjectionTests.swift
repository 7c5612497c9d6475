import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// The report's hourly projection: folded from the journal on demand, incrementally,
/// with events of unknown types counted rather than failing.
@Suite struct ReportProjectionTests {
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
        let summed = { (kind: ReportSnapshot.Row.Kind, item: String, fruit: String) -> (Int, Int) in
            snapshot.rows.filter { $0.kind == kind && $0.item == item && $0.fruit == fruit }
                .reduce((0, 0)) { ($0.0 + $1.events, $0.1 + $1.amount) }
        }
        #expect(summed(.sale, "mango-kiwi", "") == (2, 3))
        #expect(summed(.lostSale, "strawberry", "") == (1, 1))
        #expect(summed(.shortage, "strawberry", "strawberry") == (1, 6))
        #expect(summed(.consumed, "kiwi", "") == (2, 3))
        #expect(summed(.consumed, "mango", "") == (2, 6))
        #expect(!snapshot.rows.contains { $0.kind == .unknown })
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
