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
import JuiceMakerCore
import JuicePrimitives
import Locking

/// What `SQLiteStore.check()` found.
public enum StoreCheckResult: Sendable, Equatable {
    /// SQLite's integrity check found nothing wrong.
    case ok
    /// What SQLite reported (at most the limit asked for; `more` when it found more).
    /// The store is marked damaged.
    case damaged(problems: [String], more: Bool)
}

/// Looking for damage: SQLite's `quick_check` (every page and b-tree, O(file); what
/// the store runs on its own) and `integrity_check` (also every index entry against
/// its row; what `check()` runs).
enum Integrity {
    /// The problems SQLite reports (none: the file is sound), at most `limit`; a
    /// failure to even walk the file is a problem too. Busy or other failures that
    /// are not damage are thrown.
    static func problems(_ connection: Connection, thorough: Bool, limit: Int) throws(StoreError) -> [String] {
        var rows: [String] = []
        do {
            try connection.forEachRow("PRAGMA \(thorough ? "integrity_check" : "quick_check")(\(limit))") { row in
                rows.append(row.text(0))
            }
        } catch {
            // SQLite lists what it found, then may stop at damage it cannot step over.
            guard error.kind == .corrupt else { throw error }
            return rows.filter { $0 != "ok" }.compactMap(withoutHeading) + [DamageMark.note(error)]
        }
        return rows == ["ok"] ? [] : rows.compactMap(withoutHeading)
    }

    /// What is wrong with where history starts and with the stored values, in a file
    /// SQLite finds sound: no journal row at or before the last sequence compaction
    /// deleted, and every value of every table a value the store writes (the rule
    /// each column is read by, `RowCheck`), one problem per value that is not. At most
    /// `limit` value problems, then how many more.
    static func contentProblems(_ connection: Connection, limit: Int) throws(StoreError) -> [String] {
        var problems: [String] = []
        var more = 0
        let tables = try tables(connection)
        for table in tables {
            try valueProblems(of: table, in: connection) { problem in
                if problems.count < limit { problems.append(problem) } else { more += 1 }
            }
        }
        if more > 0 { problems.append("and \(more) more values the store never writes") }
        for table in ["report_hourly", "journal_rollups", "journal_totals"] where tables.contains(table) {
            if let problem = try sumProblem(of: table, in: connection) { problems.append(problem) }
        }
        // Where history starts is read only from a sound state row.
        guard !problems.contains(where: { $0.hasPrefix("compaction_state ") }) else { return problems }
        let state = try connection.compactionState()
        let early =
            try connection.integer("SELECT count(*) FROM journal WHERE sequence <= ?1") { $0.bind(1, state.through) } ?? 0
        if early > 0 {
            problems.append("journal holds \(early) events at or before sequence \(state.through), which compaction deleted")
        }
        return problems
    }

    /// The store's own tables the file holds (those with rules, `RowCheck.tables`): juice
    /// reads only these, so only their values can be impossible. A table someone else
    /// added is not juice's to judge; a column of one of these without a rule is listed,
    /// so that its values are not passed over.
    private static func tables(_ connection: Connection) throws(StoreError) -> [String] {
        var names: [String] = []
        try connection.forEachRow("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") { row in
            let name = row.text(0)
            if RowCheck.tables[name] != nil { names.append(name) }
        }
        return names
    }

    /// Calls `found` with one line for each value of `table` its column's rule refuses:
    /// the table, the row (by its key columns) and the column.
    private static func valueProblems(of table: String, in connection: Connection, found: (String) -> Void) throws(StoreError) {
        var columns: [String] = []
        try connection.forEachRow("SELECT name FROM pragma_table_info(?1) ORDER BY cid") {
            $0.bind(1, table)
        } row: { row in
            columns.append(row.text(0))
        }
        guard !columns.isEmpty else { return }
        let key = min(RowCheck.tables[table]?.key ?? 1, columns.count)
        let stored = columns.map { StoredColumn(table, $0) }
        let quoted = columns.map { "\"\($0.replacingText("\"", with: "\"\""))\"" }.joined(separator: ", ")
        try connection.forEachRow("SELECT \(quoted) FROM \"\(table.replacingText("\"", with: "\"\""))\"") { row in
            let name = (0..<key).map { index in "\(columns[index]) \(row.value(Int32(index))?.naming ?? "text that is not UTF-8")" }
                .joined(separator: " ")
            for (index, column) in stored.enumerated() {
                do throws(StoreError) {
                    _ = try row.checked(Int32(index), column, row: name)
                } catch {
                    found("\(table) row \(name): \(column.name) holds \(Self.value(of: error)), a value the store never writes")
                }
            }
        }
    }

    /// Whether the sums of `table`'s rows add up past what the store counts in (an
    /// `Int`; SQLite's `sum` fails on overflow): a report or the totals read them
    /// added up, so no row's sums may be that large (`StoredSums`).
    private static func sumProblem(of table: String, in connection: Connection) throws(StoreError) -> String? {
        do throws(StoreError) {
            try connection.run("SELECT sum(events), sum(amount) FROM \(table)")
            return nil
        } catch  where error.kind == .io {
            return "\(table) holds sums of events that add up past any count (\(error.detail))"
        }
    }

    private static func value(of error: StoreError) -> String {
        guard case let .impossibleValue(_, _, _, value) = error.reason else { return error.detail }
        return value
    }

    /// A problem without the "*** in database main ***" line SQLite puts before the
    /// first one (in the same row); nil for a row that is only that line.
    private static func withoutHeading(_ row: String) -> String? {
        guard row.hasPrefix("*** in database") else { return row }
        guard let newline = row.firstIndex(of: "\n") else { return nil }
        let rest = row[row.index(after: newline)...]
        return rest.isEmpty ? nil : String(rest)
    }
}

/// A `quick_check` of the whole file, on a thread of its own and a connection of its
/// own, whenever a commit takes the journal across a multiple of the interval
/// (whichever process commits): the committing thread does not wait, and readers
/// and writers go on meanwhile (write-ahead log). Damage found is marked at once, so
/// the next write anywhere is refused.
///
/// The interval is `interval` events (10,000 by default) while the journal is small,
/// and half the journal's size rounded down to a power of two once that is larger
/// (32,768 events from 65,536 on, 262,144 at a million): a check reads the whole
/// file, so this keeps its cost per event bounded (each event pays for at most four
/// rows' worth of checking) however large the journal grows, where a fixed interval would make it grow with the journal.
final class PeriodicCheck: Sendable {
    let interval: Int64
    private let path: String
    private let mark: DamageMark
    private let vfs: String?
    /// Whether a check is running (at most one per store object).
    private let running = LockedCondition(false)

    init(interval: Int64, path: String, mark: DamageMark, vfs: String?) {
        self.interval = interval
        self.path = path
        self.mark = mark
        self.vfs = vfs
    }

    /// The interval for a journal that has reached `sequence`.
    func interval(at sequence: Int64) -> Int64 {
        guard sequence > 0 else { return interval }
        let power = Int64(1) << (63 - sequence.leadingZeroBitCount)
        return max(interval, power / 2)
    }

    /// After a commit that took the journal from `before` to `last`.
    func committed(from before: Int64, to last: Int64) {
        guard interval > 0 else { return }
        let every = interval(at: last)
        guard last / every != before / every else { return }
        let start = running.withLock { running -> Bool in
            guard !running else { return false }
            running = true
            return true
        }
        guard start else { return }
        let path = path
        let mark = mark
        let vfs = vfs
        startDetachedThread(named: "juice.check") { [running] in
            defer { running.change { $0 = false } }
            Self.look(at: path, mark: mark, vfs: vfs)
        }
    }

    /// Waits for a running check to end (a store being closed lets it finish).
    func waitUntilIdle() {
        _ = running.wait(until: nil) { !$0 }
    }

    private static func look(at path: String, mark: DamageMark, vfs: String?) {
        guard !mark.isMarked(), let connection = try? Connection(path: path, mode: .readOnly, vfs: vfs) else { return }
        connection.onDamage = { error in mark.record(error) }
        guard let problems = try? Integrity.problems(connection, thorough: false, limit: 10), let first = problems.first else {
            return
        }
        mark.record(first)
    }
}

extension SQLiteStore {
    /// Runs SQLite's full integrity check over the store's file (on a connection of
    /// its own, so queries and commits go on meanwhile) and reports at most `limit`
    /// problems. Damage found is marked beside the file, as any damage seen is:
    /// changes are refused from then on.
    public func check(limit: Int = 20) throws(StoreError) -> StoreCheckResult {
        let connection = try Connection(path: path, mode: connectionMode, vfs: vfs)
        connection.onDamage = { [mark] error in mark.record(error) }
        var problems = try Integrity.problems(connection, thorough: true, limit: max(1, limit) + 1)
        if problems.isEmpty { problems = try Integrity.contentProblems(connection, limit: max(1, limit) + 1) }
        guard let first = problems.first else { return .ok }
        mark.record(first)
        return .damaged(problems: Array(problems.prefix(max(1, limit))), more: problems.count > max(1, limit))
    }

    /// Whether the store's file is marked damaged (by this process or another):
    /// queries may still work; changes are refused.
    public var isMarkedDamaged: Bool { mark.isMarked() }
}
