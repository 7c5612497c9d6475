import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing
@testable import JuiceCLI

/// The two ways the report gets its sums agree: the store's SQL projection and the
/// Swift fold used for a store without one; and what the figures say about events
/// of unknown types and fruits never used.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct ReportFoldTests {
    private func key(_ row: ReportSnapshot.Row) -> String {
        "\(row.hour) \(row.kind.rawValue) \(row.item) \(row.fruit) \(row.events) \(row.amount)"
    }

    @Test(arguments: [UInt64(3), 99])
    func theSQLProjectionEqualsTheSwiftFold(seed: UInt64) throws {
        let sandbox = try JuiceSandbox()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try ReportHistory.write(to: sandbox.storePath, seed: seed, changes: 250, start: now - 20 * 86_400_000, maximumStep: 3 * 3_600_000)
        let store = try SQLiteStore(path: sandbox.storePath)
        let first = now / 3_600_000 - 10 * 24, last = now / 3_600_000
        let sql = try store.report(firstHour: first, lastHour: last)
        let events = try store.events(after: 0, limit: 100_000)
        let swift = ReportSnapshot.folding(events, stock: try store.stock(), firstHour: first, lastHour: last)
        #expect(!sql.rows.isEmpty)
        #expect(Set(sql.rows.map(key)) == Set(swift.rows.map(key)))
        #expect(sql.stock == swift.stock)
        #expect(sql.throughSequence == swift.throughSequence)
    }

    @Test func unknownEventsAreAFootnoteAndUnusedFruitsLastTheWindow() throws {
        let invocation = try #require(
            {
                if case .run(let invocation) = try CommandLineParser.juice
                    .parse(["report", "--since", "24h", "--at", "2026-11-21T06:00:00Z"])
                {
                    return invocation
                }
                return nil
            }())
        let options = ReportCommand.Options(invocation)
        let window = try ReportWindow(since: options.since.value, at: options.at.value, by: options.by, now: 1_795_300_000_000)
        #expect(window.sinceMilliseconds == 1_795_154_400_000 && window.untilMilliseconds == 1_795_240_800_000)
        #expect(window.bucket == .hour && window.bucketStarts.count == 24)
        let hour = window.firstHour + 3
        let snapshot = ReportSnapshot(
            rows: [
                .init(hour: hour, kind: .sale, item: "kiwi", events: 2, amount: 2),
                .init(hour: hour, kind: .consumed, item: "kiwi", events: 2, amount: 6),
                .init(hour: hour, kind: .unknown, item: "juicemaker.juice.spilled", events: 3, amount: 0),
                .init(hour: hour, kind: .sale, item: "dragonfruit", events: 1, amount: 1),
                .init(hour: window.firstHour - 1, kind: .sale, item: "kiwi", events: 5, amount: 5),
            ], stock: Stock(repeating: 6), throughSequence: 20, journalIsEmpty: false)
        let figures = ReportFigures(snapshot, window: window)
        #expect(figures.unknownEvents == 4, "three events of an unknown type and one sale of an unknown juice")
        #expect(figures.cups == 2, "the hour before the window is left out")
        let kiwi = try #require(figures.outlook.first { $0.fruit == .kiwi })
        #expect(kiwi.perHour == 0.25 && kiwi.hoursLeft == 24 && kiwi.runsOutFirst)
        #expect(figures.outlook.filter { $0.fruit != .kiwi }.allSatisfy { $0.hoursLeft == nil && !$0.runsOutFirst })
        let text = ReportText.render(figures, style: ReportStyle(width: 120, ascii: true, color: false), language: .english)
        #expect(text.hasSuffix("\n\n* 4 events of a type this version does not know (from a newer juice) were skipped.\n"))
        #expect(text.contains("🥝 kiwi        ") && text.contains("6 left, about 24 hours (0.25/h)  ◀ runs out first"))
        #expect(text.contains("6 left, not used in the last 24h: lasts at least that long"))
        #expect(!text.contains("∞") && !text.contains(" inf") && !text.contains(" nan") && !text.contains("(nan"))
        let korean = ReportText.render(figures, style: ReportStyle(width: 120, ascii: true, color: false), language: .korean)
        #expect(korean.contains("이 버전이 모르는 종류의 이벤트 4개"))
        // Pick lists: cover 2 days at 0.25 kiwi an hour is 12; 6 in stock → bring 6.
        #expect(figures.picklist(.cover(try ReportDuration.cover("2d"))).first { $0.fruit == .kiwi }?.bring == 6)
        #expect(figures.picklist(.target(10)).allSatisfy { $0.bring == 4 })
    }
}
