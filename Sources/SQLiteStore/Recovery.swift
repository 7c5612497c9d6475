import CSQLite
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

/// One recovery: reads `source`, writes `target` (a new store's file), counts.
struct Recovery {
    let source: Connection
    let target: Connection

    private(set) var events = 0
    private(set) var lastSequence: Int64 = 0
    private(set) var skippedEvents = 0
    private(set) var skippedSequences: [ClosedRange<Int64>] = []
    /// The next sequence expected in the journal: anything below it is saved or skipped.
    private var nextExpected: Int64 = 1
    /// Each fruit's last `stockChanged` saved: sequence and quantity after it.
    private var lastChange: [Fruit: (sequence: Int64, quantity: Int)] = [:]
    private(set) var stock: [RecoveryReport.StockEntry] = []
    private(set) var copied: [String: Int] = [:]
    private(set) var incomplete: [String] = []
    /// Rows written since the target's transaction began.
    private var pending = 0

    init(source: Connection, target: Connection) {
        self.source = source
        self.target = target
    }

    static let columns = "sequence, id, time, type, change_id, event"
    static let scan = "SELECT \(columns) FROM journal WHERE sequence > ?1 ORDER BY sequence"
    static let lookup = "SELECT \(columns) FROM journal WHERE sequence = ?1"
    static let insert = "INSERT INTO journal (\(columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
    static let batch = 5_000
    static let listedRanges = 20

    mutating func run() throws(StoreError) {
        try target.execute("PRAGMA synchronous = NORMAL")
        try target.run("BEGIN IMMEDIATE")
        do throws(StoreError) {
            try journal()
            try restoreStock()
            for (table, columns) in [
                ("cursors", "subscriber, sequence"),
                ("dead_letters", "subscriber, sequence, event_id, attempts, last_error, recorded_at"),
                ("retry_states", "subscriber, sequence, attempts, next_attempt_at, last_error, disabled"),
            ] {
                try copy(table, columns: columns)
            }
            // Durable once closed: the closing checkpoint syncs the log, then the file.
            try target.run("COMMIT")
        } catch {
            target.rollback()
            throw error
        }
    }

    func report(path: String) -> RecoveryReport {
        RecoveryReport(
            path: path, events: events, lastSequence: lastSequence, skippedEvents: skippedEvents,
            skippedSequences: skippedSequences, stock: stock, cursors: copied["cursors"] ?? 0,
            deadLetters: copied["dead_letters"] ?? 0, retryStates: copied["retry_states"] ?? 0,
            incompleteTables: incomplete)
    }

    // MARK: The journal

    /// Whether an error is the source's damage (to step over) rather than a failure to stop for.
    private func isSourceDamage(_ error: StoreError) -> Bool {
        error.path == source.path && error.kind == .corrupt
    }

    private mutating func journal() throws(StoreError) {
        var after: Int64 = 0
        var bound = upperBound()
        while true {
            var lastRead: Int64?
            var rows: [Row] = []
            do throws(StoreError) {
                try source.forEachRow(Self.scan) {
                    $0.bind(1, after)
                } row: { statement throws(StoreError) in
                    let row = Row(statement)
                    lastRead = row.sequence
                    rows.append(row)
                    if rows.count >= Self.batch {
                        try save(rows)
                        rows.removeAll(keepingCapacity: true)
                    }
                }
                try save(rows)
                break
            } catch  where isSourceDamage(error) {
                try save(rows)
            }
            // A damaged page: one sequence at a time until a row reads again.
            bound = max(bound, lastRead ?? after)
            var probe = (lastRead ?? after) + 1
            var resumed = false
            while probe <= bound {
                var found: Row?
                do throws(StoreError) {
                    try source.forEachRow(Self.lookup) {
                        $0.bind(1, probe)
                    } row: {
                        found = Row($0)
                    }
                } catch  where isSourceDamage(error) {
                    found = nil
                }
                if let found {
                    try save([found])
                    after = probe
                    resumed = true
                    break
                }
                probe += 1
            }
            if !resumed { break }
        }
        lastSequence = max(bound, lastSequence)
        if nextExpected <= lastSequence { skip(nextExpected...lastSequence) }
    }

    /// The largest sequence anything readable says the journal reached.
    private func upperBound() -> Int64 {
        var bound: Int64 = 0
        var queries = ["SELECT max(sequence) FROM journal"]
        queries += EventKind.allCases.map { "SELECT max(sequence) FROM journal WHERE type = '\($0.cloudEventType)'" }
        queries += [
            "SELECT max(sequence) FROM cursors", "SELECT max(sequence) FROM dead_letters",
            "SELECT max(sequence) FROM retry_states", "SELECT max(folded) FROM report_state",
        ]
        for query in queries {
            if let value = try? source.integer(query) { bound = max(bound, value) }
        }
        return bound
    }

    /// One journal row as read.
    struct Row {
        let sequence: Int64
        let id: String
        let time: Int64
        let type: String
        let changeID: String
        let event: String

        init(_ statement: Statement) {
            sequence = statement.int64(0)
            id = statement.text(1)
            time = statement.int64(2)
            type = statement.text(3)
            changeID = statement.text(4)
            event = statement.text(5)
        }
    }

    /// Writes the sound rows of `rows` (ascending) into the new journal.
    private mutating func save(_ rows: [Row]) throws(StoreError) {
        for row in rows where row.sequence >= nextExpected {
            let judged = judge(row)
            if case .unsound = judged { continue }
            if row.sequence > nextExpected { skip(nextExpected...(row.sequence - 1)) }
            try target.run(Self.insert) { statement in
                statement.bind(1, row.sequence)
                statement.bind(2, row.id)
                statement.bind(3, row.time)
                statement.bind(4, row.type)
                statement.bind(5, row.changeID)
                statement.bind(6, row.event)
            }
            if case let .event(envelope) = judged, case let .stockChanged(fruit, _, to, _) = envelope.event {
                lastChange[fruit] = (row.sequence, to)
            }
            events += 1
            nextExpected = row.sequence + 1
            lastSequence = max(lastSequence, row.sequence)
            try commitEvery()
        }
    }

    /// What a journal row read is worth.
    private enum Judgement {
        /// It decodes as the event its columns say (sequence, id, type).
        case event(EventEnvelope)
        /// Of a type this version does not know (a newer juice's), and still a JSON
        /// object with the id its column says: kept as it is.
        case unknownType
        /// Damaged content (or a row that contradicts itself): not kept.
        case unsound
    }

    private func judge(_ row: Row) -> Judgement {
        if let envelope = try? CloudEventFormat.decode(row.event) {
            let agrees =
                envelope.sequence == row.sequence && envelope.id.description == row.id
                && envelope.event.kind.cloudEventType == row.type
            return agrees ? .event(envelope) : .unsound
        }
        guard !EventKind.allCases.contains(where: { $0.cloudEventType == row.type }),
            CloudEventFormat.objectID(row.event) == row.id
        else { return .unsound }
        return .unknownType
    }

    private mutating func skip(_ range: ClosedRange<Int64>) {
        skippedEvents += range.count
        if skippedSequences.count < Self.listedRanges { skippedSequences.append(range) }
        nextExpected = range.upperBound + 1
    }

    /// Commits the new store's transaction every `batch` rows, so a large journal
    /// is not held in one.
    private mutating func commitEvery() throws(StoreError) {
        pending += 1
        guard pending >= Self.batch else { return }
        try target.run("COMMIT")
        try target.run("BEGIN IMMEDIATE")
        pending = 0
    }

    // MARK: Stock and bookkeeping

    private mutating func restoreStock() throws(StoreError) {
        var quantities: [Fruit: Int] = [:]
        do throws(StoreError) {
            try source.forEachRow("SELECT fruit, quantity FROM stock") { row in
                if let fruit = Fruit(rawValue: row.text(0)) { quantities[fruit] = Int(row.int64(1)) }
            }
        } catch  where isSourceDamage(error) {
            incomplete.append("stock")
            for fruit in Fruit.allCases where quantities[fruit] == nil {
                let quantity = try? source.integer("SELECT quantity FROM stock WHERE fruit = ?1") { $0.bind(1, fruit.id) }
                if let quantity { quantities[fruit] = Int(quantity) }
            }
        }
        for fruit in Fruit.allCases {
            let entry: RecoveryReport.StockEntry
            if let quantity = quantities[fruit] {
                entry = .init(fruit: fruit, quantity: min(max(quantity, 0), Stock.maximumQuantity), source: .stockTable)
            } else if let change = lastChange[fruit] {
                entry = .init(
                    fruit: fruit, quantity: min(max(change.quantity, 0), Stock.maximumQuantity), source: .journal(sequence: change.sequence))
            } else {
                entry = .init(fruit: fruit, quantity: 0, source: .missing)
            }
            stock.append(entry)
            try target.run("UPDATE stock SET quantity = ?1 WHERE fruit = ?2") { statement in
                statement.bind(1, Int64(entry.quantity))
                statement.bind(2, fruit.id)
            }
        }
    }

    /// Copies `table`'s readable rows, value for value, when the old store has it.
    private mutating func copy(_ table: String, columns: String) throws(StoreError) {
        let exists = (try? source.integer("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1") { $0.bind(1, table) }) ?? 0
        guard exists > 0 else { return }
        let count = columns.split(separator: ",").count
        let placeholders = (1...count).map { "?\($0)" }.joined(separator: ", ")
        let insert = "INSERT OR REPLACE INTO \(table) (\(columns)) VALUES (\(placeholders))"
        let target = target
        var copied = 0
        do throws(StoreError) {
            try source.forEachRow("SELECT \(columns) FROM \(table)") { row throws(StoreError) in
                try target.run(insert) { statement in
                    for column in 0..<Int32(count) {
                        sqlite3_bind_value(statement.handle, column + 1, sqlite3_column_value(row.handle, column))
                    }
                }
                copied += 1
            }
        } catch  where isSourceDamage(error) {
            incomplete.append(table)
        }
        self.copied[table] = copied
    }
}
