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
import JuicePrimitives

/// What `SQLiteStore.backup(to:)` wrote.
public struct BackupResult: Sendable, Equatable {
    /// The new file.
    public let path: String
    /// Its size in database pages.
    public let pages: Int
    /// How many times another process's commit made the copy start over.
    public let restarts: Int
}

extension SQLiteStore {
    /// Pages copied per step; between steps the source is not locked.
    static let backupPagesPerStep: Int32 = 256
    /// Restarts (another process committed between two steps) before the copy is
    /// made in one step, from one snapshot: with the write-ahead log, that blocks no
    /// writer either, it only holds the log from being checkpointed meanwhile.
    static let backupRestartsBeforeOneStep = 3

    /// Copies the store, as it is at one moment, to a new file at `target` (mode
    /// 0600) with SQLite's online backup API, while this and other processes go on
    /// reading and writing. Never overwrites: an existing `target` is refused with
    /// `targetExists`. On failure the partial copy is removed.
    ///
    /// Never copies damage: a store marked damaged is refused with `markedDamaged`
    /// (recovery, not a copy, is what saves it), and the copy gets SQLite's
    /// `quick_check` before it takes its name; damage found there is damage of the
    /// store (the copy is its pages, as they were), so the store is marked and the
    /// copy removed.
    public func backup(to target: String) throws(StoreError) -> BackupResult {
        if mark.isMarked() { throw mark.refusal() }
        let partial = try StoreFile.createPartial(for: target, store: path)
        do throws(StoreError) {
            let source = try Connection(path: path, mode: connectionMode, vfs: vfs)
            source.onDamage = { [mark] error in mark.record(error) }
            let destination = try Connection(path: partial, vfs: vfs)
            let copied = try Self.copy(from: source, to: destination, target: target, store: path)
            if let problem = try Integrity.problems(destination, thorough: false, limit: 1).first {
                mark.record(problem)
                throw mark.refusal()
            }
            destination.close()
            try StoreFile.publish(partial, as: target, store: path)
            return copied
        } catch {
            StoreFile.removeNew(partial)
            throw error
        }
    }

    private static func copy(from source: Connection, to destination: Connection, target: String, store: String) throws(StoreError) -> BackupResult {
        guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            throw destination.failure(sqlite3_errcode(destination.handle), doing: .running("sqlite3_backup_init"))
        }
        var finished = false
        defer { if !finished { sqlite3_backup_finish(backup) } }
        var restarts = 0
        var lastRemaining: Int32 = .max
        var busyWaits = 0
        while true {
            let pages = restarts >= backupRestartsBeforeOneStep ? -1 : backupPagesPerStep
            let code = sqlite3_backup_step(backup, pages)
            let remaining = sqlite3_backup_remaining(backup)
            if code == SQLITE_DONE { break }
            switch code & 0xFF {
            case SQLITE_OK:
                // More left than before: a commit elsewhere made SQLite start over.
                if remaining > lastRemaining { restarts += 1 }
                lastRemaining = remaining
                busyWaits = 0
            case SQLITE_BUSY, SQLITE_LOCKED:
                busyWaits += 1
                guard busyWaits * 10 < Int(Connection.busyTimeoutMilliseconds) else {
                    throw source.failure(code, doing: .running("sqlite3_backup_step"))
                }
                // Another process holds the lock, and nothing signals across processes when it
                // lets go: back off for 10 ms as SQLite's own busy handler does, up to its timeout.
                sqlite3_sleep(10)
            default:
                // The error is the source's (damage, I/O) or the destination's (disk full).
                let failing = sqlite3_errcode(source.handle) & 0xFF == code & 0xFF ? source : destination
                throw failing.failure(code, doing: .running("sqlite3_backup_step"))
            }
        }
        let pages = Int(sqlite3_backup_pagecount(backup))
        finished = true
        let code = sqlite3_backup_finish(backup)
        guard code == SQLITE_OK else { throw destination.failure(code, doing: .running("sqlite3_backup_finish")) }
        return BackupResult(path: target, pages: pages, restarts: restarts)
    }
}

extension StoreFile {
    /// Creates the empty file a copy for `target` is written into: `<target>.partial-<pid>`,
    /// user-only, beside it. The copy takes the name `target` only when it is complete
    /// (`publish`), so a copy cut short (a signal, a crash, a full disk) never looks
    /// like a store. Refuses a `target` that exists (`targetExists`, in the words of
    /// the store at `store`).
    static func createPartial(for target: String, store: String) throws(StoreError) -> String {
        // Through the file gate first: never one of the store's files, by any spelling
        // (its `-wal` may not exist now, and a copy there would be read as its log).
        do throws(FileRefusal) {
            try FileGate(guarding: store).checkOutput(target)
        } catch {
            // The system's own refusals (a missing directory) are for the creation to say.
            guard error.systemCode != nil else {
                throw StoreError(.targetUnwritable(target, SystemFailure(code: EINVAL, message: error.message.english)), path: store)
            }
        }
        guard access(target, F_OK) != 0 else { throw StoreError(.targetExists(target), path: store) }
        let partial = "\(target).partial-\(getpid())"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError(.targetUnwritable(target, .current(errno)), path: store) }
        close(descriptor)
        return partial
    }

    /// Gives the complete copy at `partial` the name `target`, with its close record,
    /// never replacing a file that appeared there meanwhile: a hard link, where the file
    /// system has them, else a rename after one more look.
    static func publish(_ partial: String, as target: String, store: String) throws(StoreError) {
        if link(partial, target) == 0 {
            unlink(partial)
        } else {
            let error = errno
            if error == EEXIST { throw StoreError(.targetExists(target), path: store) }
            guard error == EPERM || error == ENOTSUP || error == EOPNOTSUPP || error == EMLINK else {
                throw StoreError(.targetUnwritable(target, .current(error)), path: store)
            }
            guard access(target, F_OK) != 0 else { throw StoreError(.targetExists(target), path: store) }
            guard rename(partial, target) == 0 else { throw StoreError(.targetUnwritable(target, .current(errno)), path: store) }
        }
        // What SQLite and the close record keep beside a file goes with it (after a clean
        // close only the record is there).
        for suffix in [".clean", "-journal", "-wal", "-shm"] { _ = rename(partial + suffix, target + suffix) }
    }

    /// Removes a copy that failed half-way, with what SQLite kept beside it.
    static func removeNew(_ target: String) {
        for suffix in ["", "-journal", "-wal", "-shm", ".clean"] { unlink(target + suffix) }
    }
}
