import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// Compaction: events older than the cutoff that nothing still needs are folded into
/// rollups and deleted; the report, the totals, the numbering and a recovery read the
/// same as before.
@Suite(.tags(.unit), .offPool) struct CompactionTests {
    /// Seeded orders, restocks and failures through the maker.
    private func fill(_ store: SQLiteStore, seed: UInt64, changes: Int) throws {
        var generator = SeededGenerator(seed: seed)
        let maker = JuiceMaker(store: store)
        for _ in 0..<changes {
            let juice = Juice.allCases[Int(generator.next() % UInt64(Juice.allCases.count))]
            _ = try maker.make(juice, count: 1 + Int(generator.next() % 3))
            if generator.next() % 4 == 0 { try maker.add(9, of: Fruit.allCases[Int(generator.next() % 5)]) }
        }
    }

    /// The report's rows in one order, to compare.
    private func rows(_ store: SQLiteStore) throws -> [String] {
        try store.report(firstHour: .min, lastHour: .max).rows.map { "\($0.hour) \($0.kind) \($0.item) \($0.fruit) \($0.events) \($0.amount)" }
            .sorted()
    }

    private func totals(_ store: SQLiteStore) throws -> JournalTotals {
        var totals = try store.journalTotals()
        totals.storeBytes = 0
        return totals
    }

    @Test func everythingOlderGoesButTheNewestAndTheReportTotalsAndNumberingStay() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try SQLiteStore(path: path, initialStock: Stock(repeating: 30))
        try fill(store, seed: 0xC0_4AC7, changes: 300)
        let last = try store.lastSequence()
        // Half the history reported before (the projection folded part), half not.
        _ = try store.report(firstHour: .min, lastHour: .max)
        try fill(store, seed: 0xC0_4AC8, changes: 300)
        let lastBefore = try store.lastSequence()
        #expect(lastBefore > last)
        let reportBefore = try rows(store)
        let totalsBefore = try totals(store)

        let result = try store.compact(before: Date(timeIntervalSinceNow: 3600), batchSize: 97)
        #expect(result.deletedEvents == Int(lastBefore) - 1)
        #expect(result.historyStart == lastBefore)
        #expect(result.limit == .newestEvent)
        #expect(result.batches >= (Int(lastBefore) - 1) / 97)
        // A store is created with incremental vacuum: the deleted events' pages go back.
        #expect(result.givesSpaceBack)
        #expect(result.freedPages > 0)
        #expect(try store.compactionState().historyStart == lastBefore)
        #expect(try store.events(after: 0, limit: 10).map(\.sequence) == [lastBefore])
        #expect(try store.lastSequence() == lastBefore)
        #expect(try rows(store) == reportBefore)
        #expect(try totals(store) == totalsBefore)
        #expect(try store.check() == .ok)

        // A second run finds nothing more; numbering goes on after the newest event.
        #expect(try store.compact(before: Date(timeIntervalSinceNow: 3600)).deletedEvents == 0)
        try JuiceMaker(store: store).make(.banana)
        #expect(try store.events(after: 0, limit: 10).map(\.sequence) == Array(lastBefore...(lastBefore + 2)))

        // Projections started over (another fold version) start from the rollups.
        let reportNow = try rows(store)
        let totalsNow = try totals(store)
        let raw = try RawDatabase(path)
        try raw.execute("UPDATE report_state SET version = 0; UPDATE journal_totals_state SET version = 0")
        #expect(try rows(SQLiteStore(path: path, options: .init(access: .readOnly))) == reportNow)
        #expect(try rows(store) == reportNow)
        #expect(try totals(store) == totalsNow)
    }

    /// The newest event is kept even when it is old, so a sequence is never given twice:
    /// also after a reopen, and when two compactions run.
    @Test func aSequenceIsNeverGivenTwice() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        var seen: Set<EventID> = []
        var sequences: [Int64] = []
        for round in 0..<5 {
            let store = try SQLiteStore(path: path)
            try JuiceMaker(store: store).make(.banana)
            try JuiceMaker(store: store).add(1, of: .kiwi)
            for event in try store.events(after: sequences.last ?? 0, limit: 100) {
                #expect(seen.insert(event.id).inserted)
                sequences.append(event.sequence)
            }
            _ = try store.compact(before: Date(timeIntervalSinceNow: 3600))
            _ = try store.compact(before: Date(timeIntervalSinceNow: 3600))
            #expect(try store.events(after: 0, limit: 100).count == 1, "round \(round)")
        }
        #expect(sequences == Array(1...Int64(sequences.count)))
    }

    @Test func cursorsDeadLettersAndRetriesHoldItBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.file("juice.db"), initialStock: Stock(repeating: 50))
        try fill(store, seed: 7, changes: 20)
        let future = Date(timeIntervalSinceNow: 3600)

        // A subscriber the config names without a cursor is at 0: nothing goes.
        var result = try store.compact(before: future, subscribers: ["new"])
        #expect(result.deletedEvents == 0)
        #expect(result.limit == .subscriber("new", cursor: 0))

        try store.setCursor(named: "webhook", to: 12)
        try store.setCursor(named: "command", to: 30)
        result = try store.compact(before: future)
        #expect(result.deletedEvents == 12)
        #expect(result.historyStart == 13)
        #expect(result.limit == .subscriber("webhook", cursor: 12))

        let event = try #require(try store.events(after: 14, limit: 1).first)
        try store.recordDeadLetter(
            DeadLetter(subscriber: "command", sequence: event.sequence, eventID: event.id, attempts: 3, lastError: "exit 1", recordedAt: 0))
        try store.setCursor(named: "webhook", to: 40)
        result = try store.compact(before: future)
        #expect(result.historyStart == event.sequence)
        #expect(result.limit == .deadLetter("command", sequence: event.sequence))
        #expect(try store.events(after: 0, limit: 1).first == event)

        // Not older than the cutoff: nothing goes.
        try store.removeDeadLetters(for: "command", sequences: [event.sequence])
        result = try store.compact(before: Date(timeIntervalSinceNow: -3600))
        #expect(result.deletedEvents == 0)
        #expect(result.limit == .retention)
    }

    /// A recovered compacted store keeps its rollups and where history starts: the same
    /// report, no events said to be lost, numbering after the newest.
    @Test func recoveryKeepsTheRollups() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let store = try SQLiteStore(path: path, initialStock: Stock(repeating: 30))
        try fill(store, seed: 0x4EC0, changes: 200)
        try store.setCursor(named: "webhook", to: 150)
        _ = try store.compact(before: Date(timeIntervalSinceNow: 3600))
        let reportBefore = try rows(store)
        let totalsBefore = try totals(store)
        let last = try store.lastSequence()

        let report = try store.recover(to: directory.file("recovered.db"))
        #expect(report.skippedEvents == 0)
        #expect(report.lostEvents.isEmpty)
        #expect(report.events == Int(last) - 150)
        let recovered = try SQLiteStore(path: directory.file("recovered.db"))
        #expect(try recovered.compactionState().historyStart == 151)
        #expect(try rows(recovered) == reportBefore)
        #expect(try totals(recovered) == totalsBefore)
        try JuiceMaker(store: recovered).make(.banana)
        #expect(try recovered.events(after: last, limit: 1).first?.sequence == last + 1)
    }
}
