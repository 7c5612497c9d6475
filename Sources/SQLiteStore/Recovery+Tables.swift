import CSQLite
import JuiceMakerCore

// The stock and the delivery bookkeeping: through SQLite where it reads them, else
// from the table's own pages. Unlike journal rows, these rows change, so their pages
// are read only when no -wal beside the file may hold newer versions of them.
extension Recovery {
    mutating func restoreStock() throws(StoreError) {
        var quantities: [Fruit: Int] = [:]
        let (rows, whole) = try readRows(of: "stock")
        for (values, _) in rows {
            guard RowCheck.admits(values, to: "stock"), let fruit = values[0].text.flatMap(Fruit.init(rawValue:)),
                case let .integer(quantity) = values[1]
            else {
                unsound["stock", default: []].insert("\(values)")
                continue
            }
            if quantities[fruit] == nil { quantities[fruit] = Int(quantity) }
        }
        if Fruit.allCases.contains(where: { quantities[$0] == nil }), !whole { incomplete.append("stock") }
        for fruit in Fruit.allCases {
            let entry: RecoveryReport.StockEntry
            if let quantity = quantities[fruit] {
                entry = .init(fruit: fruit, quantity: quantity, source: .stockTable)
            } else if let change = lastChange[fruit] {
                // A sound event's quantity is within 0...Stock.maximumQuantity.
                entry = .init(fruit: fruit, quantity: change.quantity, source: .journal(sequence: change.sequence))
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

    /// Copies `table`'s sound rows, value for value, when the old store has it: rows
    /// SQLite read replace one another (the last wins, as in the table), rows read
    /// from pages only fill in.
    mutating func copy(_ table: String) throws(StoreError) {
        guard let columns = RowCheck.tables[table]?.columns else { return }
        let count = columns.split(separator: ",").count
        let placeholders = (1...count).map { "?\($0)" }.joined(separator: ", ")
        let (rows, whole) = try readRows(of: table)
        var copied = 0
        for (values, fromSQLite) in rows {
            guard try isSound(values, of: table) else {
                unsound[table, default: []].insert("\(values)")
                continue
            }
            let insert = "INSERT OR \(fromSQLite ? "REPLACE" : "IGNORE") INTO \(table) (\(columns)) VALUES (\(placeholders))"
            try target.run(insert) { statement in
                for (index, value) in values.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
            }
            copied += Int(sqlite3_changes(target.handle))
            if let column = RowCheck.tables[table]?.reaches, case let .integer(sequence) = values[column] { reached(sequence) }
            try commitEvery()
        }
        if !whole { incomplete.append(table) }
        self.copied[table] = copied
    }

    /// Whether a row of `table` that passed its columns' rules also agrees with the
    /// journal saved: a dead letter's event, where the journal has its sequence, is
    /// the one it names; a dead letter or retry state without one names a sequence the
    /// old journal was seen to reach (a retry state: the next one after it); a cursor
    /// is not an index entry in disguise (named by its event's id or type).
    private func isSound(_ values: [PageValue], of table: String) throws(StoreError) -> Bool {
        guard RowCheck.admits(values, to: table) else { return false }
        if table == "lost_events", case let .integer(first) = values[1], case let .integer(last) = values[2] { return first <= last }
        guard table == "dead_letters" || table == "retry_states" || table == "cursors", case let .integer(sequence) = values[1] else {
            return true
        }
        var saved: String?
        var savedType: String?
        try target.forEachRow("SELECT id, type FROM journal WHERE sequence = ?1") { statement in
            statement.bind(1, sequence)
        } row: { row in
            saved = row.text(0)
            savedType = row.text(1)
        }
        // A "cursor" named by the id or the type of the event at its sequence is an
        // entry of one of the journal's indexes (by id, by type), read from a page that
        // took the cursors' place: both are (text, sequence) records, as a cursor is.
        if table == "cursors" { return saved == nil || (values[0].text != saved && values[0].text != savedType) }
        if let saved { return table == "retry_states" || values[2].text == saved }
        return sequence <= lastSequence + (table == "retry_states" ? 1 : 0)
    }

    /// `table`'s rows as values, each with whether SQLite read it (else the page
    /// reader did), and whether the table was read whole. Rows with a text that is not
    /// UTF-8 are counted as unsound here.
    private mutating func readRows(of table: String) throws(StoreError) -> (rows: [([PageValue], Bool)], whole: Bool) {
        guard let columns = RowCheck.tables[table]?.columns else { return ([], true) }
        let schemaQuery = "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1"
        let listed = source.flatMap { try? $0.integer(schemaQuery) { $0.bind(1, table) } }
        guard listed.map({ $0 > 0 }) ?? (roots[table] != nil) else { return ([], true) }
        if foreignTrees.contains(table) {
            unsound[table, default: []].insert("its pages hold another table's rows")
            return ([], false)
        }
        let count = columns.split(separator: ",").count
        var rows: [([PageValue], Bool)] = []
        // In a file cut short SQLite reads a page's missing bytes as zeros, so a row there
        // may come back with values it never held (a quantity of 0); the page reader
        // takes only cells the file holds whole.
        let pagesOnly = cutShort != nil && pageRecords(of: table) != nil
        var damaged = source == nil || pagesOnly
        var notText = 0
        if let source, !pagesOnly {
            do throws(StoreError) {
                try source.forEachRow("SELECT \(columns) FROM \(table)") { row in
                    if let values = row.values(count) { rows.append((values, true)) } else { notText += 1 }
                }
            } catch  where isSourceDamage(error) {
                damaged = true
            }
        }
        if notText > 0 { unsound[table, default: []].insert("\(notText) rows with text that is not UTF-8") }
        guard damaged else { return (rows, true) }
        let read = pageRecords(of: table)
        for record in read?.records ?? [] where record.values.count == count {
            rows.append((record.values, false))
        }
        return (rows, read?.whole == true)
    }

    /// Records, for each durable subscriber the old store knew (by its cursor, retry
    /// state or dead letters), the sequences after its cursor the new journal lacks,
    /// and where the new store's numbering continues: after `lastSequence`, so no
    /// sequence a subscriber may have seen is given again.
    mutating func recordLosses() throws(StoreError) {
        var cursors: [String: Int64] = [:]
        for query in [
            "SELECT subscriber, sequence FROM cursors", "SELECT subscriber, 0 FROM retry_states",
            "SELECT subscriber, 0 FROM dead_letters",
        ] {
            try target.forEachRow(query) { row in
                let subscriber = row.text(0)
                cursors[subscriber] = max(cursors[subscriber] ?? 0, row.int64(1))
            }
        }
        for (subscriber, cursor) in cursors.sorted(by: { $0.key < $1.key }) {
            for range in skippedSequences where range.upperBound > cursor {
                let gone = max(range.lowerBound, cursor + 1)...range.upperBound
                lost.append(LostEvents(subscriber: subscriber, sequences: gone, recoveredAt: recoveredAt))
                try target.run("INSERT OR REPLACE INTO lost_events (subscriber, first, last, recovered_at) VALUES (?1, ?2, ?3, ?4)") { statement in
                    statement.bind(1, subscriber)
                    statement.bind(2, gone.lowerBound)
                    statement.bind(3, gone.upperBound)
                    statement.bind(4, recoveredAt)
                }
            }
        }
        try target.run("INSERT INTO recoveries (recovered_at, last_sequence) VALUES (?1, ?2)") { statement in
            statement.bind(1, recoveredAt)
            statement.bind(2, lastSequence)
        }
    }

    /// The records of `table`'s tree read from its pages, or nil when they may be
    /// stale (a -wal is beside the file) or the schema does not lead to them.
    private func pageRecords(of table: String) -> (records: [(rowid: Int64?, values: [PageValue])], whole: Bool)? {
        guard !hasWriteAheadLog, let pages, let root = roots[table] else { return nil }
        return pages.records(ofTreeAt: root)
    }
}
