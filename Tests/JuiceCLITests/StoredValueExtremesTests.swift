import CSQLite
import Foundation
import JuiceMakerCore
import JuiceTestSupport
import SQLiteStore
import Testing

/// No value a store file holds makes `juice` trap: every column of every table, set to
/// each extreme value one at a time in a copy of a store that holds a row of every
/// table, then every command that reads the store. A command that meets a value the
/// store never writes exits 74 with one line naming it, and `store check` finds it too.
///
/// The tables come from `sqlite_schema` and their columns from `PRAGMA table_info`,
/// so a table or a column added later is covered without a change here. Running every
/// command for every (column, value) pair would take minutes, so each column is tried
/// with `valuesPerColumn` values chosen with a fixed seed (the same ones on every
/// run), plus the kept cases below; `JUICE_EXTREMES=all` tries every pair.
@Suite(.tags(.process), .notInUnitRun, .offPool) struct StoredValueExtremesTests {
    /// The extremes, as SQL literals: NaN is stored as NULL by SQLite, ±infinity is what
    /// 9e999 reads as.
    static let extremes: [String] = [
        "NULL", "9e999", "-9e999", "1e300", "-1e300", "9223372036854775807", "-9223372036854775808", "-1", "''", "'x'", "X'00FF'",
    ]

    /// Always run: the first three trapped (SIGILL) before every stored value was read
    /// by its column's rule (`subscribers` and `deliver` converting a retry's time,
    /// `subscribers` a recovery's); the rest reach a conversion or a sum that was
    /// unchecked (a time shown, a sequence less one, sums added up).
    static let kept: [Case] = [
        Case(table: "retry_states", column: "next_attempt_at", value: "1e300"),
        Case(table: "retry_states", column: "next_attempt_at", value: "9e999"),
        Case(table: "lost_events", column: "recovered_at", value: "-9e999"),
        Case(table: "dead_letters", column: "recorded_at", value: "-1e300"),
        Case(table: "deliveries", column: "delivered_at", value: "9e999"),
        Case(table: "rewinds", column: "rewound_at", value: "1e300"),
        Case(table: "retry_states", column: "sequence", value: "-9223372036854775808"),
        Case(table: "report_hourly", column: "events", value: "9223372036854775807"),
        Case(table: "journal_totals", column: "amount", value: "9223372036854775807"),
        Case(table: "journal_rollups", column: "amount", value: "9223372036854775807"),
    ]

    static let valuesPerColumn = 1
    static let seed: UInt64 = 0x7EA7_5EED

    /// The commands that read the store, each with `--config` added.
    static let commands: [[String]] = [
        ["subscribers"], ["subscribers", "--json"], ["deliver"], ["events"], ["events", "--json"], ["stock"], ["report"], ["menu"],
        ["store", "check"],
    ]
    /// What they may exit with: done, store I/O (damage), or try later (`deliver`, its
    /// endpoint refusing).
    static let documented: Set<Int32> = [0, 74, 75]

    struct Case: Hashable, CustomStringConvertible {
        let table: String
        let column: String
        let value: String
        var description: String { "\(table).\(column) = \(value)" }
    }

    @Test func noStoredValueMakesAReadingCommandTrap() throws {
        let sandbox = try JuiceSandbox()
        let config = try sandbox.write(
            #"{"subscribers": [{"type": "webhook", "name": "hook", "url": "http://127.0.0.1:9/hook"}]}"#,
            to: "hook.json")
        let template = try Self.makeStore(in: sandbox, config: config)
        let sound = try run(Self.commands, on: template, in: sandbox, config: config)
        for (command, result) in sound {
            try #require(result.status == 0 || (command == ["deliver"] && result.status == 75), "\(command): \(result.stderr)")
        }

        let columns = try Self.columns(of: template)
        let tables = Set(columns.map(\.table))
        #expect(tables.count >= 15, "\(tables.sorted())")
        let all = ProcessInfo.processInfo.environment["JUICE_EXTREMES"] == "all"
        var random = SeededGenerator(seed: Self.seed)
        var cases: [Case] = []
        for (table, column) in columns {
            let values = all ? Self.extremes : Array(Self.extremes.shuffled(using: &random).prefix(Self.valuesPerColumn))
            cases += values.map { Case(table: table, column: column, value: $0) }
        }
        cases += Self.kept.filter { !cases.contains($0) }

        var refused = 0
        let copy = sandbox.file("case.db")
        for item in cases {
            try Self.fresh(copy, from: template)
            guard try Self.write(item, into: copy) else {
                refused += 1
                continue
            }
            let results = try run(Self.commands, on: copy, in: sandbox, config: config)
            var readerSawDamage = false
            for (command, result) in results {
                #expect(
                    Self.documented.contains(result.status),
                    "\(item): juice \(command.joined(separator: " ")) exited \(result.status): \(result.stderr)")
                #expect(!result.stderr.contains("Fatal error"), "\(item): \(command): \(result.stderr)")
                if command != ["store", "check"], result.status == 74, result.stderr.contains("never writes") {
                    readerSawDamage = true
                    let lines = result.stderr.split(separator: "\n").filter { $0.contains("never writes") }
                    #expect(lines.count == 1, "\(item): \(command): \(result.stderr)")
                }
            }
            if readerSawDamage, let check = results.last?.1 {
                // Said by the check, or by opening the store for it (where a recovery's numbering is read).
                let said = check.stdout + check.stderr
                #expect(check.status == 74 && said.contains(item.column), "\(item): store check missed it: \(said)")
            }
        }
        // NOT NULL columns refuse NULL, the rowid refuses what is not an integer: such a
        // file needs damage SQLite's integrity check already reports.
        #expect(refused < cases.count / 3, "\(refused) of \(cases.count) cases refused by SQLite")
    }

    /// Runs each of `commands` on the store at `path`.
    private func run(_ commands: [[String]], on path: String, in sandbox: JuiceSandbox, config: String) throws -> [([String], ProgramRun)] {
        try commands.map { command in
            (command, try sandbox.run(command, environment: ["JUICE_MAKER_STORE": path], config: config))
        }
    }

    /// A store with a row in every table: events, a durable subscriber's cursor and
    /// delivery time, a retry state, a dead letter, a rewind, rollups and where history
    /// starts (compaction), the report's and the totals' projections, a recovery and
    /// its lost events; closed, so the file holds it all.
    static func makeStore(in sandbox: JuiceSandbox, config: String) throws -> String {
        let path = sandbox.file("template.db")
        let environment = ["JUICE_MAKER_STORE": path]
        // Without the webhook: no background delivery writes to the file meanwhile.
        #expect(try sandbox.run(["stock", "add", "banana", "40"], environment: environment).status == 0)
        for juice in ["banana", "banana", "banana"] {
            let order = try sandbox.run(["order", juice, "--quiet"], environment: environment)
            #expect(order.status == 0, "\(order.stderr)")
        }
        do {
            let store = try SQLiteStore(path: path)
            let compacted = try store.compact(before: Date().addingTimeInterval(3_600), batchSize: 2)
            #expect(compacted.deletedEvents > 0, "\(compacted)")
            let maker = JuiceMaker(store: store)
            _ = try maker.make(.banana)
            _ = try maker.add(3, of: .kiwi)
            let events = try store.events(after: 0, limit: .max)
            let last = try #require(events.last)
            try store.setCursor(named: "hook", to: last.sequence, deliveredAt: Date().timeIntervalSince1970)
            _ = try store.rewind("hook", to: .sequence(last.sequence - 1))
            try store.recordDeadLetter(
                DeadLetter(
                    subscriber: "hook", sequence: last.sequence - 1, eventID: events[events.count - 2].id, attempts: 3, lastError: "HTTP 503",
                    recordedAt: Date().timeIntervalSince1970))
            try store.setRetryState(
                DeliveryRetryState(sequence: last.sequence, attempts: 1, nextAttemptAt: Date().timeIntervalSince1970 + 3_600, lastError: "HTTP 500"),
                for: "hook")
            _ = try store.report(firstHour: .min, lastHour: .max)
            _ = try store.journalTotals()
        }
        let now = Date().timeIntervalSince1970
        try tamper(path, "INSERT INTO recoveries VALUES (\(now), 1); INSERT INTO lost_events VALUES ('hook', 1, 1, \(now));")
        for table in try columns(of: path).map(\.table) {
            #expect(try count(of: table, in: path) > 0, "the template store has no row in \(table)")
        }
        return path
    }

    /// Every column of every table of the store at `path`, from its own schema.
    static func columns(of path: String) throws -> [(table: String, column: String)] {
        let tables = try query(path, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        return try tables.flatMap { table in
            try query(path, "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid").map { (table, $0) }
        }
    }

    /// The key columns of `table` (its primary key, else its rowid).
    static func key(of table: String, in path: String) throws -> [String] {
        let key = try query(path, "SELECT name FROM pragma_table_info('\(table)') WHERE pk > 0 ORDER BY pk")
        return key.isEmpty ? ["rowid"] : key
    }

    /// Writes the case's value into its column of the first row of its table; false
    /// when SQLite refuses it (NOT NULL, the rowid).
    static func write(_ item: Case, into path: String) throws -> Bool {
        let key = try key(of: item.table, in: path).joined(separator: ", ")
        let sql = """
            PRAGMA ignore_check_constraints = 1;
            UPDATE "\(item.table)" SET "\(item.column)" = \(item.value)
            WHERE (\(key)) = (SELECT \(key) FROM "\(item.table)" ORDER BY \(key) LIMIT 1);
            """
        do {
            try tamper(path, sql)
            return true
        } catch {
            return false
        }
    }

    /// A copy of `template` at `path`, without what an earlier case left beside it.
    static func fresh(_ path: String, from template: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        for leftover in try FileManager.default.contentsOfDirectory(atPath: directory) where leftover.hasPrefix(name) {
            try FileManager.default.removeItem(atPath: directory + "/" + leftover)
        }
        try FileManager.default.copyItem(atPath: template, toPath: path)
    }

    static func count(of table: String, in path: String) throws -> Int {
        Int(try query(path, "SELECT count(*) FROM \"\(table)\"").first ?? "") ?? 0
    }

    /// The first column of each row of `sql`, as text.
    static func query(_ path: String, _ sql: String) throws -> [String] {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw CocoaError(.fileReadUnknown)
        }
        defer { sqlite3_close_v2(handle) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(handle))])
        }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
        return rows
    }
}
