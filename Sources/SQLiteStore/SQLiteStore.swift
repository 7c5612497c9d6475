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
import Synchronization
import Locking

/// The embedded default store: stock and journal in one SQLite file.
///
/// Guarantees:
/// - `commit` writes the stock and every event of a change in one transaction, so
///   no reader in any process sees one without the other, and a crash at any moment
///   leaves either all of it or none of it.
/// - Several processes may use one file at once; writers queue on SQLite's write
///   lock, and `decide` runs only once the lock is held, exactly once per commit.
/// - A file that is not a JuiceMaker store (another database, random bytes, a
///   damaged or newer store) is refused with a `StoreError` and never written. An
///   empty file is taken as a new store.
/// - A damaged file is never written: damage is looked for when the store opens
///   after anything but a clean close (`CloseRecord`), every `checkEvery` journal
///   events (`PeriodicCheck`), on `check()`, and seen whenever SQLite reports it from
///   any operation. Once seen, it is marked beside the file (`DamageMark`) and every
///   change, in every process, is refused with `markedDamaged`; queries still run.
/// - A store the user may only read is opened read-only (with `Access.automatic`):
///   queries work, changes are refused with `storeReadOnly`, nothing is migrated.
/// - The file, its -wal and -shm, and every file kept beside it are created 0600.
/// - Safe to use from any thread.
public final class SQLiteStore: StockStore, DeliveryJournal {
    /// How a store may be opened.
    public struct Options: Sendable, Equatable {
        /// Whether a store that cannot be written may be opened for reading.
        public enum Access: Sendable, Equatable {
            /// Read-write, or refused (`inaccessible`) when the file or its directory
            /// cannot be written.
            case readWrite
            /// Read-write when the file and its directory allow it, else read-only.
            case automatic
            /// Read-only: nothing is created, migrated or written.
            case readOnly
        }

        public var access: Access
        /// Whether missing directories above the file are created (user-only); when
        /// not, a missing directory is refused with `directoryMissing`.
        public var createsDirectories: Bool
        /// Journal events between two background integrity checks while the journal
        /// is small (it grows with the journal beyond; see `PeriodicCheck`); 0: never.
        public var checkEvery: Int64
        /// The SQLite VFS every connection of the store opens its files through, by
        /// its registered name; nil: SQLite's default. For the tests, which put a VFS
        /// that fails writes, syncs and truncates under the store (I/O faults).
        package var vfs: String?
        /// Whether a new file keeps its free pages apart (`auto_vacuum = INCREMENTAL`),
        /// so compaction can give them back. `false` creates one as versions before
        /// did: for the tests of such files, which stores created then still are.
        package var keepsFreePagesApart: Bool

        public init(access: Access = .readWrite, createsDirectories: Bool = true, checkEvery: Int64 = 10_000) {
            self.access = access
            self.createsDirectories = createsDirectories
            self.checkEvery = checkEvery
            self.vfs = nil
            self.keepsFreePagesApart = true
        }
    }

    /// The store's file.
    public let path: String

    // Two connections, each behind its own lock and never held together: the writer
    // commits while readers (`events(after:)`, `waitForEvents`) keep reading the last
    // committed state through the write-ahead log, neither waiting for the other.
    // A read-only store has no writer.
    let writer: Locked<Connection>?
    let reader: Locked<Connection>
    /// What this process's `waitForEvents` callers wait on: local commits, and the
    /// one of them that looks for other processes' commits (see `Arrivals`).
    let arrivals = LockedCondition(Arrivals())
    let waiters = Atomic<Int>(0)
    /// How commits are made durable; cursor writes use `.normal` (see `setCursor`).
    let durability: Durability
    /// Why the store is read-only, or nil when it is not.
    public let readOnlyCause: StoreError.ReadOnlyCause?
    /// How connections of its own (checks, backups, recovery) open the file.
    let connectionMode: Connection.Mode
    /// The VFS of every connection the store opens (`Options.vfs`).
    let vfs: String?
    let mark: DamageMark
    let periodicCheck: PeriodicCheck
    private let record: CloseRecord?
    /// Where a recovered store's numbering continues (`recoveredFloor`); fixed for the
    /// life of a file, since only a recovery, into a new file, writes it.
    private let numberedAfter: Int64

    /// Opens the store at `path`, creating it (and its directories, user-only) with
    /// `initialStock` if there is no file yet, and migrating an older one.
    ///
    /// Throws `StoreError` when the file cannot be used: `.inaccessible` (permissions),
    /// `.corrupt` (not a database, damaged, cut short), `.foreign` (another
    /// application's database), `.newerVersion`. The message names the path and the
    /// fix. A refused file is left byte-for-byte as it was.
    public init(
        path: String,
        durability: Durability = .full,
        initialStock: Stock = Stock(repeating: Stock.defaultInitialQuantity),
        options: Options = Options()
    ) throws(StoreError) {
        self.path = path
        self.durability = durability
        vfs = options.vfs
        let mark = DamageMark(store: path)
        self.mark = mark
        periodicCheck = PeriodicCheck(interval: options.checkEvery, path: path, mark: mark, vfs: options.vfs)
        if let fruit = Fruit.allCases.first(where: { initialStock[$0] < 0 }) {
            throw StoreError(.negativeInitialStock(fruit), path: path)
        }
        if options.createsDirectories, options.access != .readOnly { try StoreFile.createParentDirectories(of: path) }
        let inspection = try StoreFile.inspect(
            path, latestVersion: Schema.latestVersion, allowReadOnly: options.access != .readWrite, takesEmptyDatabase: options.access != .readOnly)
        let readOnlyCause: StoreError.ReadOnlyCause? =
            switch inspection {
            case let .openReadOnly(cause): cause
            case .open, .create: options.access == .readOnly ? .requested : nil
            }
        if let readOnlyCause {
            guard inspection != .create else { throw StoreFile.noStore(at: path) }
            let reader = try Self.openReadOnly(path, mark: mark, vfs: options.vfs)
            self.readOnlyCause = readOnlyCause
            connectionMode = reader.mode
            self.reader = Locked(reader.connection)
            writer = nil
            record = nil
            numberedAfter = 0
            return
        }
        if inspection == .create { try StoreFile.createEmpty(path) }
        let (record, alone, needsCheck) = CloseRecord.begin(store: path)
        do throws(StoreError) {
            let identity = FileIdentity(of: path)
            if alone {
                mark.setAsideIfStale(current: identity)
            } else if mark.namesAnotherFile(than: identity) {
                // A recovered file was moved into place while processes still use the
                // damaged one (and its write-ahead log): no changes until they are gone.
                mark.assumeMarked()
            }
            let writer = try Connection(path: path, vfs: options.vfs)
            mark.opened(identity)
            writer.onDamage = { error in mark.record(error) }
            // A store being created has nothing to look at; one that may have been
            // touched since its last clean close is checked before anyone writes.
            if needsCheck, inspection == .open, !mark.isMarked(),
                let problem = try Integrity.problems(writer, thorough: false, limit: 10).first
            {
                mark.record(problem)
            }
            record?.opened()
            if mark.isMarked() {
                do throws(StoreError) {
                    try Schema.requireLatest(writer)
                } catch  where error.kind != .newerVersion && error.kind != .foreign {
                    throw mark.refusal()
                }
                writer.keepWriteAheadLogOnClose()
            } else {
                try Schema.prepare(writer, initialStock: initialStock, keepsFreePagesApart: options.keepsFreePagesApart)
                try writer.execute(durability.pragma)
            }
            // A marked store takes no changes, and may lack the table.
            numberedAfter = mark.isMarked() ? 0 : try writer.recoveredFloor()
            let reader = try Connection(path: path, vfs: options.vfs)
            reader.onDamage = { error in mark.record(error) }
            try reader.execute("PRAGMA query_only = ON")
            if mark.isMarked() { reader.keepWriteAheadLogOnClose() }
            self.writer = Locked(writer)
            self.reader = Locked(reader)
        } catch {
            // The connections are closed by now (they were locals); nothing was
            // damaged by a refusal, so the record says so when this was the last user.
            record?.end(store: path, clean: !mark.isMarked())
            throw error
        }
        self.record = record
        self.readOnlyCause = nil
        connectionMode = .readOnly
    }

    /// A read-only connection that has read the schema: `SQLITE_OPEN_READONLY`, or
    /// `immutable=1` in a read-only directory without a write-ahead log (where
    /// SQLite cannot create the -shm file it would otherwise need).
    private static func openReadOnly(
        _ path: String, mark: DamageMark, vfs: String?
    ) throws(StoreError) -> (connection: Connection, mode: Connection.Mode) {
        mark.opened(FileIdentity(of: path))
        var mode = Connection.Mode.readOnly
        while true {
            let connection = try Connection(path: path, mode: mode, vfs: vfs)
            connection.onDamage = { error in mark.record(error) }
            do throws(StoreError) {
                try Schema.requireLatest(connection)
                try connection.execute("PRAGMA query_only = ON")
                return (connection, mode)
            } catch  where error.kind == .inaccessible && mode == .readOnly && !StoreFile.hasWriteAheadLog(path) {
                mode = .immutable
            }
        }
    }

    deinit {
        periodicCheck.waitUntilIdle()
        let damaged = mark.isMarked()
        writer?.withLock { connection in
            if damaged { connection.keepWriteAheadLogOnClose() }
            connection.close()
        }
        reader.withLock { connection in
            if damaged { connection.keepWriteAheadLogOnClose() }
            connection.close()
        }
        record?.end(store: path, clean: !damaged)
    }

    /// The writer, when changes are allowed: not for a read-only store, and not
    /// once the file is marked damaged (by this process or another).
    func writable() throws(StoreError) -> Locked<Connection> {
        guard let writer else { throw StoreError(.storeReadOnly(readOnlyCause ?? .requested), path: path) }
        if mark.isMarked() { throw mark.refusal() }
        return writer
    }

    /// Whether the store was opened read-only (`readOnlyCause` says why).
    public var isReadOnly: Bool { writer == nil }

    /// Creates `directory` and its missing parents, user-only (0700), as `init` does
    /// for the store's own directory. For hosts that put other files (a log) in the
    /// state directory before, or without, opening a store.
    public static func createDirectory(_ directory: String) throws(StoreError) {
        try StoreFile.createDirectories(directory, reportingAs: directory)
    }

    /// Throws unless there is a file with content at `path`: `emptyFile` for an empty
    /// file, `cannotOpen` for none. For work on a store that must not create one
    /// (checking, backing up): opening the store would take an empty file as new.
    public static func requireExisting(at path: String) throws(StoreError) {
        try StoreFile.requireContent(path)
    }

    /// Throws `directoryMissing` unless the directory that would hold `path` exists.
    public static func requireDirectory(of path: String) throws(StoreError) {
        let directory = PathText.parent(of: path)
        try StoreFile.requireDirectory(directory.isEmpty ? "." : directory, store: path)
    }

    /// `$XDG_STATE_HOME/juice-maker/juice.db`, else `~/.local/state/juice-maker/juice.db`
    /// (`$HOME`, else the user's home directory). A relative `XDG_STATE_HOME` is ignored,
    /// as the XDG base directory specification requires.
    public static func defaultPath(environment: [String: String]) -> String {
        StoreFile.defaultPath(environment: environment)
    }

    // MARK: StockStore

    public func stock() throws(StoreError) -> Stock {
        try reader.withLock { connection throws(StoreError) in try connection.readStock() }
    }

    public func commit(_ decide: (Stock, JournalPosition) throws -> StoreChange) throws -> StoreChange {
        // Only values cross between `decide` and the connection (no closure holds
        // both), which keeps the connection inside the lock's isolation region.
        let change = try writable().withLock { connection throws -> StoreChange in
            try connection.beginImmediate()
            do {
                let current = try connection.readStock()
                let position = try connection.journalPosition(numberedAfter: numberedAfter)
                let change = try decide(current, position)
                try connection.write(change, replacing: current, at: position)
                try connection.commitTransaction()
                return change
            } catch {
                connection.rollback()
                throw error
            }
        }
        if let first = change.events.first, let last = change.events.last {
            wakeWaiters()
            periodicCheck.committed(from: first.sequence - 1, to: last.sequence)
        }
        return change
    }

    private func wakeWaiters() {
        guard waiters.load(ordering: .sequentiallyConsistent) > 0 else { return }
        arrivals.change { $0.generation &+= 1 }
    }
}
