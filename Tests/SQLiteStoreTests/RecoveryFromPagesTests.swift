import Foundation
import JuiceMakerCore
import SQLiteStore
import JuiceTestSupport
import Testing

/// Recovery where SQLite's own reading stops: a copy cut short, a damaged root,
/// interior or schema page. The leaf pages that are intact give up their rows.
@Suite(.tags(.unit), .offPool) struct RecoveryFromPagesTests {
    /// A store of about 330 events (some 60 pages), closed; its events and stock.
    private func history(at path: String) throws -> (events: [EventEnvelope], stock: Stock) {
        try Damage.makeHistory(at: path, changes: 150)
        let store = try SQLiteStore(path: path)
        return (try store.events(after: 0, limit: .max), try store.stock())
    }

    /// The sequences plain SQLite reads from `path` once the header's page count is
    /// zeroed (so it takes the file's size), one lookup per sequence.
    private func plainSQLiteReads(_ path: String, upTo last: Int64, scratch: String) throws -> Set<Int64> {
        var bytes = try #require(contents(of: path))
        bytes.replaceSubrange(28..<32, with: [0, 0, 0, 0])
        try bytes.write(to: URL(fileURLWithPath: scratch))
        let raw = try RawDatabase(scratch, readOnly: true)
        return Set(
            (1...last).filter { sequence in
                // Whole: the event reads back as what was written (a cell the cut went
                // through reads with zeros for its missing bytes).
                (try? raw.rows("SELECT event FROM journal WHERE sequence = ?1", ["\(sequence)"]))
                    .flatMap(\.first?.first).map { (try? CloudEventFormat.decode($0)) != nil } == true
            })
    }

    /// A copy cut at 100,000 bytes, one missing its last page, one cut in the middle
    /// of its last page (a negative length counts from the end).
    @Test(arguments: [100_000, -4096, -1500])
    func aCopyCutShortGivesUpWhatItHolds(length: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let (original, stock) = try history(at: path)
        let size = try #require(Damage.size(of: path))
        let copy = directory.file("copy.db")
        try Damage.cut(path, to: length > 0 ? length : Int(size) + length, as: copy)

        let report = try SQLiteStore.recover(from: copy, to: directory.file("recovered.db"))
        let saved = try Damage.expectSound(report, original: original)
        #expect(report.cutShort?.size == Int64(length > 0 ? length : Int(size) + length))
        #expect(report.cutShort?.expected == size)
        // Every fruit's row is in the first pages, whole.
        #expect(report.stock.map(\.source) == Array(repeating: .stockTable, count: Fruit.allCases.count))
        #expect(try SQLiteStore(path: report.path).stock() == stock)
        // At least what SQLite itself reads with the size taken from the file (which
        // reads a last page the cut went through as far as its cells are whole), and
        // from the first event on without a gap up to where the missing part begins.
        let plain = try plainSQLiteReads(copy, upTo: Int64(original.count), scratch: directory.file("plain.db"))
        let furthest = try #require(plain.max())
        let firstMissing = (1...furthest).first { !plain.contains($0) } ?? furthest + 1
        #expect(firstMissing > 1)
        #expect(plain.isSubset(of: Set(saved)), "missing: \(plain.subtracting(saved).sorted())")
        #expect(Set(1..<firstMissing).isSubset(of: Set(saved)), "missing: \(Set(1..<firstMissing).subtracting(saved).sorted())")
        if length < 0 {
            // Only the last page is gone: its rows, not more (a page holds fewer than 20).
            #expect(original.count - saved.count < 20, "\(report.skippedSequences)")
        }
    }

    @Test func damageToTheJournalsRootPageCostsNoEvent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let (original, stock) = try history(at: path)
        try Damage.flip(path, page: Damage.rootPage(of: "journal", in: path))

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        #expect(try Damage.expectSound(report, original: original) == original.map(\.sequence))
        #expect(report.skippedEvents == 0)
        #expect(try SQLiteStore(path: report.path).stock() == stock)
    }

    /// The root and the first leaf damaged: that leaf's rows, and only they, are lost.
    @Test func damageToTheRootAndALeafCostsOnlyThatLeafsRows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let (original, _) = try history(at: path)
        try Damage.flip(path, page: Damage.firstJournalLeaf(of: path))
        try Damage.flip(path, page: Damage.rootPage(of: "journal", in: path))

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        let saved = try Damage.expectSound(report, original: original)
        #expect(report.skippedSequences.count == 1 && report.skippedSequences.first?.lowerBound == 1, "\(report.skippedSequences)")
        #expect(report.skippedEvents > 0 && report.skippedEvents < 20, "\(report.skippedSequences)")
        #expect(saved == Array(Int64(report.skippedEvents + 1)...Int64(original.count)))
    }

    /// The schema's page (page 1, past the file header) damaged: SQLite reads nothing,
    /// the journal's pages still give every event, and the stock comes from them.
    /// Past the file header (the schema table's page header), and at its very start
    /// (the header's "SQLite format 3" text, so the file is no longer taken for a
    /// database at all).
    @Test(arguments: [100, 0])
    func damageToTheSchemaPageCostsNoEvent(at offset: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let (original, stock) = try history(at: path)
        try Damage.flip(path, page: 1, at: offset)

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        #expect(try Damage.expectSound(report, original: original) == original.map(\.sequence))
        for entry in report.stock where entry.source != .missing {
            #expect(entry.quantity == stock[entry.fruit], "\(entry)")
        }
    }

    /// A row larger than a page (an event from a machine whose source is 15,000
    /// characters long) spills into overflow pages: read from the pages, it is saved
    /// whole.
    @Test func aRowSpillingIntoOverflowPagesIsSavedWhole() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let (original, _) = try history(at: path)
        let source = "/juice-maker/" + String(repeating: "0123456789", count: 1_500)
        let long = try JuiceMaker(store: SQLiteStore(path: path), source: source)
        try long.make(.banana)
        let sequence = original.count + 1
        let event = try RawDatabase(path, readOnly: true).value("SELECT event FROM journal WHERE sequence = \(sequence)")
        #expect(event.count > 3 * Damage.pageSize)
        try Damage.flip(path, page: Damage.rootPage(of: "journal", in: path))

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        #expect(report.lastSequence >= Int64(sequence) && report.skippedEvents == 0, "\(report.skippedSequences)")
        let saved = try RawDatabase(report.path, readOnly: true).rows("SELECT event FROM journal WHERE sequence = ?1", ["\(sequence)"])
        #expect(saved == [[event]])
    }

    /// A row of a type this version does not know (a newer juice's, or a flipped byte
    /// in `type`) is not an event this version can read back: it is counted and not
    /// saved, so `juice events` reads the recovered store whole.
    @Test func aRowOfAnUnknownTypeIsCountedNotSaved() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let (original, _) = try history(at: path)
        let sequence = original.count + 1
        let id = "0193a5b0-0000-7000-8000-000000000001"
        let event = #"{"id":"\#(id)","type":"com.example.future","data":{}}"#
        try RawDatabase(path).execute(
            "INSERT INTO journal (sequence, id, time, type, change_id, event) VALUES (\(sequence), '\(id)', 0, 'com.example.future', '\(id)', '\(event)')"
        )
        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        #expect(report.events == original.count && report.skippedSequences == [Int64(sequence)...Int64(sequence)])
        #expect(report.unreadableRows["journal"] == 1)
        let recovered = try SQLiteStore(path: report.path)
        #expect(try recovered.events(after: 0, limit: .max).map(\.sequence) == original.map(\.sequence))
    }

    /// Dead letters over several pages, the first leaf damaged: SQLite's scan stops
    /// there, the table's other pages give up the rest.
    @Test func aDamagedLeafOfTheDeadLettersCostsOnlyItsOwnRows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("juice.db")
        let (original, _) = try history(at: path)
        let note = String(repeating: "connection refused; ", count: 10)
        // Written, then closed: the rows reach the file itself, not only its -wal.
        let leaves = try {
            let raw = try RawDatabase(path)
            for sequence in 1...200 {
                try raw.execute(
                    "INSERT INTO dead_letters VALUES ('hook', \(sequence), '\(original[sequence - 1].id)', 3, '\(note)', 0.5)")
            }
            return try raw.rows("SELECT pageno FROM dbstat WHERE name = 'dead_letters' AND pagetype = 'leaf' ORDER BY pageno")
        }()
        try #require(leaves.count > 3)
        try Damage.flip(path, page: try #require(Int(leaves[0][0])))

        let report = try SQLiteStore.recover(from: path, to: directory.file("recovered.db"))
        #expect(report.incompleteTables == ["dead_letters"])
        // The damaged leaf held fewer than a quarter of them; every other row is saved.
        #expect(report.deadLetters > 150 && report.deadLetters < 200, "\(report.deadLetters)")
        let saved = try RawDatabase(report.path, readOnly: true).rows("SELECT sequence, event_id, last_error FROM dead_letters")
        #expect(saved.count == report.deadLetters)
        #expect(saved.allSatisfy { $0[1] == original[Int($0[0])! - 1].id.description && $0[2] == note })
    }
}

extension Damage {
    /// What every recovery keeps to: the new store is sound, every event it holds is
    /// the original event of that sequence, byte for byte, and the report's counts
    /// and ranges say exactly which sequences it lacks. The saved sequences.
    static func expectSound(_ report: RecoveryReport, original: [EventEnvelope]) throws -> [Int64] {
        let recovered = try SQLiteStore(path: report.path)
        #expect(try recovered.check() == .ok)
        #expect(Damage.mode(of: report.path) == 0o600)
        let saved = try recovered.events(after: 0, limit: .max)
        #expect(saved.count == report.events)
        let bySequence = Dictionary(uniqueKeysWithValues: original.map { ($0.sequence, $0) })
        for event in saved { #expect(bySequence[event.sequence] == event, "event \(event.sequence) is not the original's") }
        #expect(report.events + report.skippedEvents == Int(report.lastSequence))
        let skipped = Set(report.skippedSequences.flatMap { Array($0) })
        let sequences = saved.map(\.sequence)
        #expect(Set(sequences).isDisjoint(with: skipped))
        if report.skippedSequences.count < 20, report.lastSequence > 0 {
            #expect(Set(sequences).union(skipped) == Set(1...report.lastSequence))
        }
        return sequences
    }
}
