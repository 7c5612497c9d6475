import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore

/// What one damaged copy came to.
struct DamageOutcome: Sendable {
    let damage: DamageCase
    /// What was done to the copy.
    let what: String
    /// How long `SQLiteStore.recover(from:to:)` took.
    let seconds: Double
    /// What recovery said: the counts saved, or the error it refused with.
    let summary: String
    /// Each invariant that broke, in words.
    let violations: [String]
    /// Rows altered in place that nothing in the file can tell from real ones (a byte
    /// of free text changed to another valid one): reported, not failed.
    let notes: [String]

    var line: String {
        "\(damage) [\(what)] \(String(format: "%.3f", seconds)) s, \(summary)"
    }
}

/// Recovers a damaged copy and holds the result to the truth read before the damage
/// (issue 34, item 5): no invented or altered row in any table, stock only as the
/// stock table held it or as the journal proves it, every row on a journal page left
/// intact saved, numbering that continues after every cursor, a new store that passes
/// the store's check, reads whole, and takes an order a durable subscriber then reads.
enum DamageOracle {
    /// A recovery slower than this is a hang-class failure (the random mode records it;
    /// the fixed set only reports times).
    static let hangSeconds = 10.0

    /// Refusals that are right when nothing intact is left: nothing of a store there.
    private static func isNothingThere(_ error: StoreError) -> Bool {
        switch error.reason {
        case .emptyFile, .nothingReadable, .notADatabase: true
        default: false
        }
    }

    static func run(_ damage: DamageCase, in directory: TemporaryDirectory) throws -> DamageOutcome {
        let store = try FuzzStore.shared(seed: damage.store)
        let copy = store.damaged(damage)
        let name = "\(damage.kind)-\(damage.store)-\(damage.seed)"
        let source = directory.file(name + ".db")
        let target = directory.file(name + "-new.db")
        try Data(copy.bytes).write(to: URL(fileURLWithPath: source))
        defer {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where file.hasPrefix(name) {
                try? FileManager.default.removeItem(atPath: directory.file(file))
            }
        }
        let intact = intactRows(store, copy.bytes)
        let start = ContinuousClock.now
        let result: Result<RecoveryReport, StoreError>
        do throws(StoreError) {
            result = .success(try SQLiteStore.recover(from: source, to: target))
        } catch {
            result = .failure(error)
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var violations = Violations()
        if seconds > hangSeconds { violations.add("hang-class", "recover took \(String(format: "%.1f", seconds)) s") }
        switch result {
        case .failure(let error):
            if !intact.isEmpty || !isNothingThere(error) {
                violations.add(
                    "recover threw", "\(error) (\(intact.count) journal rows sit on pages left intact; reason \(error.reason))")
            }
            return DamageOutcome(
                damage: damage, what: copy.what, seconds: seconds, summary: "refused: \(error)", violations: violations.all, notes: [])
        case .success(let report):
            try check(report, against: store.truth, intact: intact, violations: &violations)
            let summary =
                "saved \(report.events) events (skipped \(report.skippedEvents), last \(report.lastSequence)), "
                + "\(report.cursors) cursors, \(report.deadLetters) dead letters, \(report.retryStates) retry states"
            return DamageOutcome(
                damage: damage, what: copy.what, seconds: seconds, summary: summary, violations: violations.all, notes: violations.notes)
        }
    }

    /// The sequences of journal rows (without overflow pages) whose leaf page is in
    /// the copy exactly as it was, at its place: what recovery must give back.
    private static func intactRows(_ store: FuzzStore, _ bytes: [UInt8]) -> Set<Int64> {
        var rows: Set<Int64> = []
        for (page, sequences) in store.truth.journalLeafRows {
            let range = (page - 1) * store.pageSize..<page * store.pageSize
            guard range.upperBound <= bytes.count, bytes[range] == store.bytes[range] else { continue }
            rows.formUnion(sequences)
        }
        return rows
    }

    private static func check(
        _ report: RecoveryReport, against truth: StoreTruth, intact: Set<Int64>, violations: inout Violations
    ) throws {
        // Every row of every table, byte for byte a row that was there. A row whose key
        // was never there is invented; one whose key was there but whose bytes differ
        // is a failure — for the bookkeeping tables only when a reader could tell
        // (RowSoundness), and a note when the damage left it self-consistent (those
        // rows carry no digest: nothing in the file can tell it apart).
        let raw = try RawDatabase(report.path, readOnly: true)
        let journal = try raw.values("SELECT \(StoreTruth.journalColumns) FROM journal ORDER BY sequence")
        var saved: Set<Int64> = []
        for row in journal {
            guard case .integer(let sequence) = row[0], let original = truth.journal[sequence], row[1] == original[1] else {
                violations.add("recovered journal row not in oracle", "\(row.prefix(5))")
                continue
            }
            saved.insert(sequence)
            guard row != original else { continue }
            // Journal rows carry a digest of their event (EventDigest): an alteration a
            // reader could not tell from the row alone is told by it, so every one fails.
            violations.add(
                "recovered journal row altered", "sequence \(sequence): \(RowSoundness.journal(row, original: original) ?? "self-consistent")")
        }
        if journal.count != report.events {
            violations.add("report miscounts", "says \(report.events) events, the new journal holds \(journal.count)")
        }
        for table in RowSoundness.Table.allCases {
            let originals = table.rows(truth)
            for row in try raw.values("SELECT \(table.columns) FROM \(table.rawValue)") where !originals.contains(row) {
                if let other = RowSoundness.Table.allCases.first(where: {
                    $0 != table && $0.rows(truth).contains { Array($0.prefix(row.count)) == row }
                }) {
                    violations.add("recovered \(table.name) is a row of \(other.rawValue)", "\(row)")
                    continue
                }
                // Found by its key, or, where the damage changed a key's value (a subscriber
                // "hook" read as "h_ok"), as the one row it differs from in one value only.
                let original =
                    originals.first { table.key($0) == table.key(row) }
                    ?? originals.first { $0.count == row.count && zip($0, row).filter { $0 != $1 }.count == 1 }
                guard let original else {
                    violations.add("recovered \(table.name) not in oracle", "\(row)")
                    continue
                }
                if let problem = table.problem(row, original: original) {
                    violations.add("recovered \(table.name) altered", "\(row): \(problem)")
                } else {
                    violations.note("\(table.name) altered but self-consistent", "\(row), was \(original)")
                }
            }
        }
        let lost = intact.subtracting(saved).sorted()
        if !lost.isEmpty {
            violations.add(
                "rows lost from intact pages",
                "\(lost.count) of the \(intact.count) rows on journal pages left intact not saved (\(lost.prefix(6).map(String.init).joined(separator: ", "))\(lost.count > 6 ? ", …" : ""))"
            )
        }
        checkStock(report, truth: truth, saved: saved, violations: &violations)
        try checkUse(report, violations: &violations)
    }

    /// Each fruit as the stock table held it, or as the last `stockChanged` saved says.
    private static func checkStock(_ report: RecoveryReport, truth: StoreTruth, saved: Set<Int64>, violations: inout Violations) {
        for entry in report.stock {
            switch entry.source {
            case .stockTable:
                if Int64(entry.quantity) != truth.stock[entry.fruit.id] {
                    violations.add(
                        "stock invented",
                        "\(entry.fruit.id) \(entry.quantity) from the stock table, which held \(truth.stock[entry.fruit.id].map(String.init) ?? "nothing")"
                    )
                }
            case .journal(let sequence):
                guard let change = truth.stockChanges[sequence], change.fruit == entry.fruit, change.to == entry.quantity, saved.contains(sequence)
                else {
                    violations.add("stock invented", "\(entry.fruit.id) \(entry.quantity) from journal event \(sequence), which does not say so")
                    continue
                }
                if let later = saved.filter({ $0 > sequence && truth.stockChanges[$0]?.fruit == entry.fruit }).min() {
                    violations.add(
                        "stock not the journal's last", "\(entry.fruit.id) from event \(sequence), but saved event \(later) changed it later")
                }
            case .missing:
                if entry.quantity != 0 { violations.add("stock invented", "\(entry.fruit.id) \(entry.quantity) with no source") }
            }
        }
    }

    /// The new store in use: its check, reading it whole, an order, a durable subscriber.
    private static func checkUse(_ report: RecoveryReport, violations: inout Violations) throws {
        let store: SQLiteStore
        do {
            store = try SQLiteStore(path: report.path)
        } catch {
            violations.add("new store does not open", "\(error)")
            return
        }
        do {
            if case .damaged(let problems, _) = try store.check() { violations.add("store check fails", problems.joined(separator: "; ")) }
        } catch {
            violations.add("store check fails", "\(error)")
        }
        do {
            // What `juice events` reads: every row, each one an event.
            let entries = try store.entries(after: 0, kinds: nil, limit: .max, newest: false)
            for case .unreadable(let row) in entries { violations.add("juice events: row unreadable", "\(row.sequence): \(row.reason)") }
            if entries.count != report.events {
                violations.add("juice events reads a different count", "\(entries.count), report says \(report.events)")
            }
            // What `juice subscribers` and the deliveries read.
            _ = try store.deadLetters(for: nil)
        } catch {
            violations.add("reading the new store fails", "\(error)")
        }
        let cursors = (try? store.cursors()) ?? [:]
        let letters = ((try? RawDatabase(report.path, readOnly: true).values("SELECT subscriber, sequence FROM dead_letters")) ?? [])
        let states = ((try? RawDatabase(report.path, readOnly: true).values("SELECT subscriber, sequence FROM retry_states")) ?? [])
        let before: Int64
        do {
            before = try store.lastSequence()
            try JuiceMaker(store: store).make(.banana)
        } catch {
            violations.add("order refused on the new store", "\(error)")
            return
        }
        guard let new = try? store.events(after: before, limit: .max).first else {
            violations.add("order journaled nothing", "after \(before)")
            return
        }
        for (subscriber, cursor) in cursors.sorted(by: { $0.key < $1.key }) where new.sequence <= cursor {
            violations.add("sequence reused", "new event \(new.sequence) <= cursor \(cursor) (\(subscriber))")
        }
        for (label, rows) in [("dead letter", letters), ("retry state", states)] {
            for row in rows {
                if case .integer(let sequence) = row[1], new.sequence <= sequence {
                    violations.add("sequence reused", "new event \(new.sequence) <= \(label) sequence \(sequence) (\(row[0]))")
                }
            }
        }
        // A durable subscriber reads after its cursor (`committedEntries`, as durable delivery does).
        for (subscriber, cursor) in cursors.sorted(by: { $0.key < $1.key }) {
            let read = (try? store.committedEntries(after: cursor, limit: .max)) ?? []
            let seen = read.contains { if case .event(let event) = $0 { event.envelope.id == new.id } else { false } }
            if !seen {
                violations.add("durable subscriber misses the new event", "\(subscriber) (cursor \(cursor)) never reads event \(new.sequence)")
            }
        }
    }
}

/// Broken invariants (and notes) by kind, each kept to its first three instances and a count.
struct Violations {
    private var byKind: [(kind: String, details: [String], count: Int)] = []
    private var notesByKind: [(kind: String, details: [String], count: Int)] = []

    mutating func add(_ kind: String, _ detail: String) { Self.add(kind, detail, to: &byKind) }

    mutating func note(_ kind: String, _ detail: String) { Self.add(kind, detail, to: &notesByKind) }

    private static func add(_ kind: String, _ detail: String, to list: inout [(kind: String, details: [String], count: Int)]) {
        if let index = list.firstIndex(where: { $0.kind == kind }) {
            list[index].count += 1
            if list[index].details.count < 3 { list[index].details.append(detail) }
        } else {
            list.append((kind, [detail], 1))
        }
    }

    var all: [String] { Self.lines(byKind) }
    var notes: [String] { Self.lines(notesByKind) }

    private static func lines(_ list: [(kind: String, details: [String], count: Int)]) -> [String] {
        list.map { entry in
            "\(entry.kind): \(entry.details.joined(separator: " | "))\(entry.count > entry.details.count ? " (and \(entry.count - entry.details.count) more)" : "")"
        }
    }
}
