import CSQLite
import JuiceMakerCore

// The stock and the delivery bookkeeping: through SQLite where it reads them, else
// from the table's own pages. Unlike journal rows, these rows change, so their pages
// are read only when no -wal beside the file may hold newer versions of them.
extension Recovery {
    mutating func restoreStock() throws(StoreError) {
        var quantities: [Fruit: Int] = [:]
        var damaged = source == nil
        if let source {
            do throws(StoreError) {
                try source.forEachRow("SELECT fruit, quantity FROM stock") { row in
                    if let fruit = Fruit(rawValue: row.text(0)) { quantities[fruit] = Int(row.int64(1)) }
                }
            } catch  where isSourceDamage(error) {
                damaged = true
                for fruit in Fruit.allCases where quantities[fruit] == nil {
                    let quantity = try? source.integer("SELECT quantity FROM stock WHERE fruit = ?1") { $0.bind(1, fruit.id) }
                    if let quantity { quantities[fruit] = Int(quantity) }
                }
            }
        }
        if damaged, let records = pageRecords(of: "stock")?.records {
            for record in records where record.values.count == 2 {
                guard let fruit = record.values[0].text.flatMap(Fruit.init(rawValue:)), quantities[fruit] == nil,
                    let quantity = record.values[1].integer
                else { continue }
                quantities[fruit] = Int(clamping: quantity)
            }
        }
        if Fruit.allCases.contains(where: { quantities[$0] == nil }), damaged { incomplete.append("stock") }
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
    mutating func copy(_ table: String, columns: String) throws(StoreError) {
        let schemaQuery = "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1"
        let listed = source.flatMap { try? $0.integer(schemaQuery) { $0.bind(1, table) } }
        guard listed.map({ $0 > 0 }) ?? (roots[table] != nil) else { return }
        let count = columns.split(separator: ",").count
        let placeholders = (1...count).map { "?\($0)" }.joined(separator: ", ")
        let target = target
        var copied = 0
        var damaged = source == nil
        if let source {
            let insert = "INSERT OR REPLACE INTO \(table) (\(columns)) VALUES (\(placeholders))"
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
                damaged = true
            }
        }
        if damaged {
            let read = pageRecords(of: table)
            let insert = "INSERT OR IGNORE INTO \(table) (\(columns)) VALUES (\(placeholders))"
            for record in read?.records ?? [] where record.values.count == count {
                try target.run(insert) { statement in
                    for (index, value) in record.values.enumerated() { value.bind(to: statement, at: Int32(index + 1)) }
                }
                copied += Int(sqlite3_changes(target.handle))
            }
            if read?.whole != true { incomplete.append(table) }
        }
        self.copied[table] = copied
    }

    /// The records of `table`'s tree read from its pages, or nil when they may be
    /// stale (a -wal is beside the file) or the schema does not lead to them.
    private func pageRecords(of table: String) -> (records: [(rowid: Int64?, values: [PageValue])], whole: Bool)? {
        guard !hasWriteAheadLog, let pages, let root = roots[table] else { return nil }
        return pages.records(ofTreeAt: root)
    }
}
