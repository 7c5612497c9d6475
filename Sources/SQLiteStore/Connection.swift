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
import Locking

/// One SQLite connection to the store's file, with its prepared statements cached.
///
/// Not thread-safe: `SQLiteStore` keeps each connection inside a `Locked`.
final class Connection {
    let handle: OpaquePointer
    let path: String
    private var statements: [String: Statement] = [:]

    /// How long one attempt waits for another process's lock (SQLite's busy handler).
    static let busyTimeoutMilliseconds: Int32 = 5_000
    /// How many busy timeouts in a row `beginImmediate` accepts before giving up.
    private static let beginAttempts = 6

    /// How a connection opens its file.
    enum Mode {
        /// Read-write, creating the file if absent.
        case readWrite
        /// `SQLITE_OPEN_READONLY`: SQLite still uses (and, in a writable directory,
        /// creates) the -shm file to read the write-ahead log.
        case readOnly
        /// Read-only with `immutable=1`: no locks, no -shm; for a read-only
        /// directory without a write-ahead log, where no writer can be at work.
        case immutable
    }

    /// Called with every failure SQLite reports as damage (`SQLITE_CORRUPT`,
    /// `SQLITE_NOTADB`), whatever the operation: the store marks itself damaged.
    var onDamage: (@Sendable (StoreError) -> Void)?
    private var isClosed = false

    /// Opens the file at `path`: read-write (creating it if absent) or read-only;
    /// through the VFS registered as `vfs`, or SQLite's default when nil.
    init(path: String, mode: Mode = .readWrite, vfs: String? = nil) throws(StoreError) {
        var handle: OpaquePointer?
        let code: Int32
        let (name, flags) =
            switch mode {
            case .readWrite: (path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE)
            case .readOnly: (path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE)
            case .immutable:
                (Self.uri(path) + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE)
            }
        if let vfs {
            code = sqlite3_open_v2(name, &handle, flags, vfs)
        } else {
            code = sqlite3_open_v2(name, &handle, flags, nil)
        }
        guard let handle else {
            throw StoreError(.connectionUnavailable(code: code), path: path)
        }
        self.handle = handle
        self.path = path
        // Past this point every property is set, so a throw runs deinit, which closes.
        guard code == SQLITE_OK else { throw failure(code, doing: .opening) }
        if mode == .readWrite, sqlite3_db_readonly(handle, "main") == 1 {
            throw StoreError(.fileReadOnly, path: path)
        }
        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
    }

    /// `file:` and the path, with the bytes a URI gives meaning to (`?`, `#`, `%`) escaped.
    private static func uri(_ path: String) -> String {
        var bytes = Array("file:".utf8)
        for byte in path.utf8 {
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "%") {
                let hex = Array("0123456789ABCDEF".utf8)
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    deinit { close() }

    /// Closes the connection (the last one to the file checkpoints it and removes
    /// the write-ahead log, unless `keepWriteAheadLogOnClose` was called). Idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Closing will not checkpoint the write-ahead log into the file: the file of a
    /// store marked damaged is never written, not even by a checkpoint.
    func keepWriteAheadLogOnClose() {
        guard !isClosed else { return }
        _ = juice_sqlite3_no_checkpoint_on_close(handle)
    }

    // MARK: Statements

    /// The cached statement for `sql`, prepared on first use.
    func prepared(_ sql: String) throws(StoreError) -> Statement {
        if let statement = statements[sql] { return statement }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else { throw failure(code, doing: .preparing(sql)) }
        let statement = Statement(handle: raw, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `sql` once, binding with `bind` and calling `row` for each result row.
    func forEachRow(
        _ sql: String,
        bind: (Statement) -> Void = { _ in },
        row: (Statement) throws(StoreError) -> Void
    ) throws(StoreError) {
        let statement = try prepared(sql)
        defer { statement.reset() }
        bind(statement)
        while true {
            let code = sqlite3_step(statement.handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw failure(code, doing: .running(sql)) }
            do {
                try row(statement)
            } catch {
                // A stored value's damage is found by the row reader, which knows no path.
                throw StoredColumn.located(error, at: path)
            }
        }
    }

    /// The first column of the first row of `sql`, or nil when there is no row.
    func integer(_ sql: String, bind: (Statement) -> Void = { _ in }) throws(StoreError) -> Int64? {
        var value: Int64?
        try forEachRow(sql, bind: bind) { statement in
            if value == nil { value = statement.int64(0) }
        }
        return value
    }

    /// Runs `sql`, a cached statement that returns no rows, binding with `bind`.
    func run(_ sql: String, bind: (Statement) -> Void = { _ in }) throws(StoreError) {
        try forEachRow(sql, bind: bind) { _ in }
    }

    /// Runs `sql` (one or more statements, no parameters) without caching it.
    func execute(_ sql: String) throws(StoreError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw failure(code, doing: .running(sql)) }
    }

    // MARK: Transactions

    /// Takes the write lock, waiting out other writers.
    ///
    /// A write transaction starts with the lock already held, so it can never fail
    /// half-way on a lock another process holds; retrying here is safe because
    /// nothing has been read or decided yet.
    func beginImmediate() throws(StoreError) {
        var attempt = 1
        while true {
            do throws(StoreError) {
                try run("BEGIN IMMEDIATE")
                return
            } catch  where error.kind == .busy && attempt < Self.beginAttempts {
                attempt += 1
            } catch {
                // The message says the whole wait: every attempt's busy timeout.
                guard case .busy(let operation, let seconds, let message) = error.reason else { throw error }
                throw StoreError(.busy(operation, seconds: seconds * Self.beginAttempts, engineMessage: message), path: path)
            }
        }
    }

    /// Takes the write lock if no other connection holds it, without waiting: `false`
    /// when another one does (nothing begun then).
    func beginImmediateIfFree() throws(StoreError) -> Bool {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds) }
        do {
            try run("BEGIN IMMEDIATE")
            return true
        } catch  where error.kind == .busy {
            return false
        }
    }

    func commitTransaction() throws(StoreError) {
        try run("COMMIT")
    }

    /// Abandons the open transaction, if any. Never fails: SQLite rolls back on its
    /// own when a statement error already ended the transaction.
    func rollback() {
        if sqlite3_get_autocommit(handle) == 0 {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        }
    }

    /// Runs `body` in a write transaction: committed if it returns, rolled back if it throws.
    func writeTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try beginImmediate()
        do {
            let value = try body()
            try commitTransaction()
            return value
        } catch {
            rollback()
            throw error
        }
    }

    // MARK: Errors

    /// `SQLITE_IOERR_SHMSIZE` (4874), which Swift does not import from sqlite3.h.
    static let shmSizeError = SQLITE_IOERR | 19 << 8

    /// Whether an I/O error is the disk filling up: growing the -shm file fails with
    /// `SQLITE_IOERR_SHMSIZE` (SQLite says "disk I/O error"), where a full disk while
    /// writing the file or its -wal is `SQLITE_FULL`.
    static func isDiskFull(_ code: Int32, systemError: Int32) -> Bool {
        code == shmSizeError || systemError == ENOSPC || systemError == EDQUOT
    }

    /// A `StoreError` naming the path, what the store was doing and what SQLite said.
    func failure(_ code: Int32, doing operation: StoreError.Operation) -> StoreError {
        let message = String(cString: sqlite3_errmsg(handle))
        let reason: StoreError.Reason =
            switch code & 0xFF {
            case SQLITE_BUSY, SQLITE_LOCKED:
                .busy(operation, seconds: Int(Self.busyTimeoutMilliseconds / 1000), engineMessage: message)
            case SQLITE_CORRUPT, SQLITE_NOTADB:
                .damaged(operation, engineMessage: message)
            case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH:
                .permissionDenied(operation, engineMessage: message)
            case SQLITE_FULL:
                .diskFull(operation)
            case SQLITE_IOERR where Self.isDiskFull(code, systemError: sqlite3_system_errno(handle)):
                .diskFull(operation)
            default:
                .engineFailure(operation, code: code, engineMessage: message)
            }
        let error = StoreError(reason, path: path)
        if case .damaged = reason { onDamage?(error) }
        return error
    }
}
