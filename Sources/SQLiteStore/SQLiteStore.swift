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
/// - Safe to use from any thread.
public final class SQLiteStore: StockStore, EventJournal {
    /// The store's file.
    public let path: String

    // Two connections, each behind its own lock and never held together: the writer
    // commits while readers (`events(after:)`, `waitForEvents`) keep reading the last
    // committed state through the write-ahead log, neither waiting for the other.
    let writer: Locked<Connection>
    let reader: Locked<Connection>
    /// What this process's `waitForEvents` callers wait on: local commits, and the
    /// one of them that looks for other processes' commits (see `Arrivals`).
    let arrivals = LockedCondition(Arrivals())
    let waiters = Atomic<Int>(0)
    /// How commits are made durable; cursor writes use `.normal` (see `setCursor`).
    let durability: Durability

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
        initialStock: Stock = Stock(repeating: Stock.defaultInitialQuantity)
    ) throws(StoreError) {
        self.path = path
        self.durability = durability
        if let fruit = Fruit.allCases.first(where: { initialStock[$0] < 0 }) {
            throw StoreError(.negativeInitialStock(fruit), path: path)
        }
        try StoreFile.createParentDirectories(of: path)
        try StoreFile.inspect(path, latestVersion: Schema.latestVersion)
        let writer = try Connection(path: path)
        try Schema.prepare(writer, initialStock: initialStock)
        try writer.execute(durability.pragma)
        let reader = try Connection(path: path)
        try reader.execute("PRAGMA query_only = ON")
        self.writer = Locked(writer)
        self.reader = Locked(reader)
    }

    /// Creates `directory` and its missing parents, user-only (0700), as `init` does
    /// for the store's own directory. For hosts that put other files (a log) in the
    /// state directory before, or without, opening a store.
    public static func createDirectory(_ directory: String) throws(StoreError) {
        try StoreFile.createDirectories(directory, reportingAs: directory)
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
        let change = try writer.withLock { connection throws -> StoreChange in
            try connection.beginImmediate()
            do {
                let current = try connection.readStock()
                let position = try connection.journalPosition()
                let change = try decide(current, position)
                try connection.write(change, replacing: current, at: position)
                try connection.commitTransaction()
                return change
            } catch {
                connection.rollback()
                throw error
            }
        }
        if !change.events.isEmpty { wakeWaiters() }
        return change
    }

    private func wakeWaiters() {
        guard waiters.load(ordering: .sequentiallyConsistent) > 0 else { return }
        arrivals.change { $0.generation &+= 1 }
    }
}
