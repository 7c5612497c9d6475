import CSQLite
import Foundation

/// Direct SQLite access, for building fixtures and checking files behind the store's back.
final class RawDatabase {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let handle: OpaquePointer

    init(_ path: String, readOnly: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw Failure(description: "open \(path): code \(code)")
        }
        sqlite3_busy_timeout(handle, 10_000)
        self.handle = handle
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }

    /// Every row of `sql` as text columns; `parameters` bound as text, in order.
    func rows(_ sql: String, _ parameters: [String] = []) throws -> [[String]] {
        try select(sql, parameters) { statement in
            (0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
            }
        }
    }

    /// Each row of `sql` as `row` reads it from the statement; `parameters` bound as text.
    private func select<Row>(_ sql: String, _ parameters: [String], row: (OpaquePointer) -> Row) throws -> [Row] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
        }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, parameter) in parameters.enumerated() {
            sqlite3_bind_text(statement, Int32(index + 1), parameter, -1, transient)
        }
        var rows: [Row] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else {
                throw Failure(description: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
            }
            rows.append(row(statement))
        }
    }

    /// One column's value as SQLite stores it: its storage class and its exact bytes.
    enum Value: Hashable, CustomStringConvertible {
        case null
        case integer(Int64)
        /// The double's bit pattern, so equal means the same bytes.
        case real(UInt64)
        case text([UInt8])
        case blob([UInt8])

        var description: String {
            switch self {
            case .null: "NULL"
            case .integer(let value): "\(value)"
            case .real(let bits): "\(Double(bitPattern: bits))"
            case .text(let bytes): "'\(String(decoding: bytes.prefix(40), as: UTF8.self))\(bytes.count > 40 ? "…" : "")'(\(bytes.count))"
            case .blob(let bytes): "x(\(bytes.count) bytes)"
            }
        }
    }

    /// Every row of `sql`, each column as stored (no conversion between classes).
    func values(_ sql: String) throws -> [[Value]] {
        try select(sql, []) { statement in (0..<sqlite3_column_count(statement)).map { Self.value(statement, $0) } }
    }

    private static func value(_ statement: OpaquePointer, _ column: Int32) -> Value {
        func bytes(_ pointer: UnsafeRawPointer?) -> [UInt8] {
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let pointer, count > 0 else { return [] }
            return Array(UnsafeRawBufferPointer(start: pointer, count: count))
        }
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column).bitPattern)
        case SQLITE_TEXT: return .text(bytes(sqlite3_column_text(statement, column)))
        case SQLITE_BLOB: return .blob(bytes(sqlite3_column_blob(statement, column)))
        default: return .null
        }
    }

    func value(_ sql: String) throws -> String {
        try rows(sql).first?.first ?? ""
    }
}
