import CSQLite
import Foundation
import JuiceMakerCore
import SQLiteStore

/// The raw baseline of `SQLiteOrdersBench`: one order as the store does it (the same
/// statements, bindings, events and transaction), written straight against the C API
/// with no store, lock, closure or bus in between.
final class RawOrders {
    private let db: OpaquePointer
    private var statements: [OpaquePointer] = []
    private let begin, readStock, readSequence, updateStock, insertEvent, commit: OpaquePointer
    private var ids = EventIDGenerator()
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Creates the file through `SQLiteStore` (the same schema), then reopens it raw.
    init(path: String, durability: Durability) throws {
        _ = try SQLiteStore(path: path, durability: durability, initialStock: Stock(repeating: Stock.maximumQuantity))
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            throw BenchError.unavailable("a raw SQLite connection to \(path)")
        }
        self.db = db
        sqlite3_busy_timeout(db, 5_000)
        sqlite3_exec(db, "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")", nil, nil, nil)
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
                let statement
            else { throw BenchError.unavailable("SQL \(sql)") }
            return statement
        }
        begin = try prepare("BEGIN IMMEDIATE")
        readStock = try prepare("SELECT fruit, quantity FROM stock")
        readSequence = try prepare("SELECT sequence, id FROM journal ORDER BY sequence DESC LIMIT 1")
        updateStock = try prepare("UPDATE stock SET quantity = ?1 WHERE fruit = ?2")
        insertEvent = try prepare(
            "INSERT INTO journal (sequence, id, time, type, change_id, event, digest) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
        commit = try prepare("COMMIT")
        statements = [begin, readStock, readSequence, updateStock, insertEvent, commit]
    }

    deinit {
        for statement in statements { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    /// `count` orders of `juice`, each its own transaction.
    func order(_ juice: Juice, count: Int) throws {
        for _ in 0..<count { try order(juice) }
    }

    private func order(_ juice: Juice) throws {
        try step(begin)
        var stock = Stock()
        while sqlite3_step(readStock) == SQLITE_ROW {
            let name = String(cString: sqlite3_column_text(readStock, 0))
            if let fruit = Fruit(rawValue: name) { stock[fruit] = Int(sqlite3_column_int64(readStock, 1)) }
        }
        sqlite3_reset(readStock)
        // The same lookup as the store: the last sequence and id, for the next id.
        var next: Int64 = 1
        var lastID: EventID?
        if sqlite3_step(readSequence) == SQLITE_ROW {
            next = sqlite3_column_int64(readSequence, 0) + 1
            if let text = sqlite3_column_text(readSequence, 1) { lastID = EventID(String(cString: text)) }
        }
        sqlite3_reset(readSequence)

        let needed = juice.recipe
        guard Fruit.allCases.allSatisfy({ needed[$0] <= stock[$0] }) else {
            throw BenchError.unavailable("a full stock (it ran out of fruit)")
        }
        let milliseconds = UInt64(Date().timeIntervalSince1970 * 1000)
        let time = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        let changeID = ids.next(unixMilliseconds: milliseconds, after: lastID)
        var events = [JuiceMakerEvent.juiceMade(juice: juice, count: 1, consumed: needed)]
        for fruit in Fruit.allCases where needed[fruit] > 0 {
            events.append(.stockChanged(fruit: fruit, from: stock[fruit], to: stock[fruit] - needed[fruit], reason: .order))
            stock[fruit] -= needed[fruit]
            sqlite3_bind_int64(updateStock, 1, Int64(stock[fruit]))
            bind(updateStock, 2, fruit.id)
            try step(updateStock)
        }
        for (offset, event) in events.enumerated() {
            let envelope = EventEnvelope(
                sequence: next + Int64(offset), id: ids.next(unixMilliseconds: milliseconds), time: time,
                source: EventEnvelope.defaultSource, changeID: changeID, event: event)
            sqlite3_bind_int64(insertEvent, 1, envelope.sequence)
            bind(insertEvent, 2, envelope.id.description)
            sqlite3_bind_int64(insertEvent, 3, Int64(milliseconds))
            bind(insertEvent, 4, event.kind.cloudEventType)
            bind(insertEvent, 5, changeID.description)
            let text = CloudEventFormat.encode(envelope)
            bind(insertEvent, 6, text)
            sqlite3_bind_int64(insertEvent, 7, EventDigest.of(text))
            try step(insertEvent)
        }
        try step(commit)
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { _ = sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), Self.transient) }
    }

    private func step(_ statement: OpaquePointer) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            throw BenchError.unavailable("SQL step (\(String(cString: sqlite3_errmsg(db))))")
        }
    }
}
