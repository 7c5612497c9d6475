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
import Synchronization

/// Which file a path names: device and inode, so a file moved into place is another file.
struct FileIdentity: Equatable, Sendable, CustomStringConvertible {
    let device: UInt64
    let inode: UInt64

    init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The identity of the file at `path` now, or nil when there is none.
    init?(of path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    var description: String { "device \(device) inode \(inode)" }
}

/// `<store>.damaged`: the mark a store leaves beside its file once it has seen damage
/// (an integrity check's problem, or `SQLITE_CORRUPT`/`SQLITE_NOTADB` from any
/// operation), so that every process refuses to write to that file until it is
/// replaced. Never inside the file: a damaged file is not written to, not even to say so.
///
/// The mark is a small text file, mode 0600, written once (to a temporary name, then
/// linked into place, so a reader sees all of it or none):
///
///     JuiceMaker store damaged
///     store: /home/me/.local/state/juice-maker/juice.db
///     file: device 2049 inode 1234567
///     found: 2026-11-24T01:51:37Z
///     reason: Page 12: btreeInitPage() returns error code 11
///     To clear it, recover the readable rows to a new file and move that file into place with no juice running; this mark applies only to the file above (device and inode).
///
/// It applies to the file with that device and inode only: a recovered file moved
/// into place is another file, and the first process that opens it alone sets the
/// old mark (and the old file's write-ahead log) aside.
final class DamageMark: Sendable {
    /// The store's path.
    let store: String
    /// `<store>.damaged`.
    let path: String
    /// The file this store has open (nil while it has none yet).
    private let identity: Mutex<FileIdentity?>
    /// Set once this process knows its file is marked: no more `access` calls.
    private let known = Atomic<Bool>(false)

    init(store: String) {
        self.store = store
        path = store + ".damaged"
        identity = Mutex(nil)
    }

    /// What a mark says.
    struct Contents: Equatable {
        var file: FileIdentity?
        var found: String
        var reason: String
    }

    /// Remembers which file this store has open (the mark of another file does not apply).
    func opened(_ file: FileIdentity?) {
        identity.withLock { $0 = file }
    }

    var openedFile: FileIdentity? { identity.withLock { $0 } }

    /// Whether the file this store has open is marked damaged: this process saw
    /// damage, or a mark beside it names this file (or cannot be read, which counts
    /// as marked). One `access` call when there is no mark.
    func isMarked() -> Bool {
        if known.load(ordering: .acquiring) { return true }
        guard access(path, F_OK) == 0 else { return false }
        let contents = read()
        let applies = contents.map { $0.file == nil || $0.file == openedFile } ?? true
        if applies { known.store(true, ordering: .releasing) }
        return applies
    }

    /// Whether there is a mark, and it names a file other than `file`.
    func namesAnotherFile(than file: FileIdentity?) -> Bool {
        guard access(path, F_OK) == 0, let marked = read()?.file else { return false }
        return marked != file
    }

    /// Takes the file as marked for the rest of this store object's life.
    func assumeMarked() {
        known.store(true, ordering: .releasing)
    }

    /// The mark's contents, or nil when there is none.
    func read() -> Contents? {
        // open/fstat/read, not `FileManager` (start-up rule "Date only", the Performance
        // article); a mark is a few lines.
        guard let data = try? StoreFile.readHeader(path, length: 65_536, regularOnly: true) else { return nil }
        var contents = Contents(file: nil, found: "", reason: "")
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("file: ") {
                let words = line.split(separator: " ")
                if words.count == 5, let device = UInt64(words[2]), let inode = UInt64(words[4]) {
                    contents.file = FileIdentity(device: device, inode: inode)
                }
            } else if line.hasPrefix("found: ") {
                contents.found = String(line.dropFirst(7))
            } else if line.hasPrefix("reason: ") {
                contents.reason = String(line.dropFirst(8))
            }
        }
        return contents
    }

    /// Marks the file this store has open as damaged because of `reason`, unless it
    /// is marked already. Best effort: a directory that cannot be written keeps no
    /// mark (the error that found the damage still reaches the caller).
    func record(_ reason: String) {
        if known.load(ordering: .acquiring) { return }
        known.store(true, ordering: .releasing)
        guard let file = openedFile ?? FileIdentity(of: store) else { return }
        if let existing = read(), existing.file == nil || existing.file == file { return }
        let oneLine = reason.replacingText("\n", with: "; ")
        let text = """
            JuiceMaker store damaged
            store: \(store)
            file: \(file)
            found: \(Self.now())
            reason: \(oneLine)
            To clear it, recover the readable rows to a new file and move that file into place with no juice running; \
            this mark applies only to the file above (device and inode).

            """
        let temporary = "\(path).\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        _ = fsync(descriptor)
        close(descriptor)
        defer { unlink(temporary) }
        guard written == bytes.count else { return }
        // A mark of another file (the one this replaced) gives way to this one.
        if link(temporary, path) != 0, errno == EEXIST {
            _ = rename(temporary, path)
        }
    }

    /// Marks the file damaged because SQLite reported `error`.
    func record(_ error: StoreError) {
        record(Self.note(error))
    }

    /// What a mark says of an error: SQLite's words and what was being done.
    static func note(_ error: StoreError) -> String {
        if case let .damaged(operation, message) = error.reason { return "\(message), while \(operation)" }
        return error.detail
    }

    /// The error every write gets while the file is marked.
    func refusal() -> StoreError {
        let contents = read()
        return StoreError(
            .markedDamaged(
                marker: path, foundAt: contents?.found ?? "an unknown time",
                detail: contents.map { $0.reason.isEmpty ? "no reason recorded" : $0.reason } ?? "the mark cannot be read"),
            path: store)
    }

    /// Sets aside a mark that names another file (a recovered file was moved into
    /// place), with the write-ahead log and shared-memory files the old file left:
    /// SQLite would otherwise read the old file's log as the new file's. Only for a
    /// process that has the store to itself (see `CloseRecord`), before SQLite opens it.
    func setAsideIfStale(current: FileIdentity?) {
        guard let contents = read(), let marked = contents.file, marked != current else { return }
        let suffix = ".from-damaged-\(marked.inode)"
        for leftover in [store + "-wal", store + "-shm"] where access(leftover, F_OK) == 0 {
            _ = rename(leftover, leftover + suffix)
        }
        _ = rename(path, path + suffix)
    }

    private static func now() -> String {
        RFC3339.format(Date())
    }
}
