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

/// `<store>.clean`: whether the last process to use the store closed it cleanly, and
/// what the file looked like then; the cheap way to decide whether to look for damage
/// when a store opens.
///
/// Every process that opens the store read-write holds a shared `flock` on this file
/// for as long as it has the store open; the kernel drops it when the process exits,
/// also on a crash. The record's contents:
///
/// - empty while the store is in use (the first opener empties it);
/// - written by the last process to close, after SQLite has closed (and checkpointed)
///   the file: `juice-maker store closed cleanly`, the time, and a fingerprint of the
///   file and its write-ahead log (device, inode, size, modification time).
///
/// A process that finds itself alone (an exclusive lock succeeds, at once or once a
/// lingering lock of a closed store is gone) compares the record with the file: the
/// same fingerprint means nobody has touched the file since a clean close, so there
/// is nothing to look for. Anything else (no record, an empty one left
/// by a crash or a power loss, a file changed by another program, copied, or replaced)
/// calls for an integrity check, which the opener runs while it still holds the
/// exclusive lock, so nobody writes before it has looked. Costs: an `open`, a `flock`
/// and a small read at open; a `flock`, two `stat`s and a small write at close; no `fsync`
/// (a lost record only causes one more check).
final class CloseRecord: Sendable {
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Joins the store's users. `needsCheck` when this process is alone and the file
    /// is not as the last clean close left it; then the caller holds the exclusive
    /// lock until `opened()`. A record that cannot be kept (a directory where the file
    /// cannot be created) gives no record and always a check.
    static func begin(store: String) -> (record: CloseRecord?, alone: Bool, needsCheck: Bool) {
        let path = store + ".clean"
        guard let descriptor = try? FileGate.openForUpdating(path) else { return (nil, false, true) }
        let record = CloseRecord(path: path, descriptor: descriptor)
        if lock(descriptor, LOCK_EX | LOCK_NB) { return (record, true, !record.isClean(store)) }
        _ = lock(descriptor, LOCK_SH)
        // Every user empties the record, so one that still holds a clean close was
        // held by no user: by a copy of a closed store's descriptor, which a child
        // process holds between `fork` and `exec` (the lock is the descriptor's, and
        // the copy keeps it). Alone after all, or not: either way nobody has looked.
        let nobodyLooked = !record.contents().isEmpty
        if nobodyLooked {
            if lock(descriptor, LOCK_EX | LOCK_NB) { return (record, true, !record.isClean(store)) }
            // Converting to exclusive gave up the shared lock first, also as it failed.
            _ = lock(descriptor, LOCK_SH)
        }
        record.markInUse()
        return (record, false, nobodyLooked)
    }

    /// Whether the record holds the fingerprint `store` has now.
    private func isClean(_ store: String) -> Bool {
        // Line by line over the bytes: `String.contains(String)` would load the
        // string-processing library's searcher on every open.
        let fingerprint = Array(Self.fingerprintLine(store).utf8)
        return contents().utf8.split(separator: UInt8(ascii: "\n")).contains { $0.elementsEqual(fingerprint) }
    }

    /// The check (if any) is done: the store is in use, and others may join.
    func opened() {
        markInUse()
        _ = Self.lock(descriptor, LOCK_SH)
    }

    /// Leaves the store, after SQLite closed it. The last to leave records a clean
    /// close when `clean`; otherwise the record stays empty and the next opener checks.
    func end(store: String, clean: Bool) {
        defer { close(descriptor) }
        guard clean, Self.lock(descriptor, LOCK_EX | LOCK_NB) else { return }
        let text = "juice-maker store closed cleanly\nclosed: \(RFC3339.format(Date()))\n\(Self.fingerprintLine(store))\n"
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        if written == bytes.count { _ = ftruncate(descriptor, off_t(bytes.count)) }
    }

    private func markInUse() {
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_size > 0 { _ = ftruncate(descriptor, 0) }
    }

    private func contents() -> String {
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: bytes.prefix(count), as: UTF8.self) : ""
    }

    /// `file: …; wal: …`: identity, size and modification time of the file and its
    /// log (an empty log, which a reader may leave behind, counts as none).
    static func fingerprintLine(_ store: String) -> String {
        func describe(_ path: String, emptyIsNone: Bool) -> String {
            var info = stat()
            guard stat(path, &info) == 0, !(emptyIsNone && info.st_size == 0) else { return "none" }
            #if canImport(Darwin)
            let modified = info.st_mtimespec
            #else
            let modified = info.st_mtim
            #endif
            return "dev \(info.st_dev) ino \(info.st_ino) size \(info.st_size) mtime \(modified.tv_sec).\(modified.tv_nsec)"
        }
        return "file: \(describe(store, emptyIsNone: false)); wal: \(describe(store + "-wal", emptyIsNone: true))"
    }

    /// `flock`, retried when a signal interrupts a blocking wait.
    private static func lock(_ descriptor: Int32, _ operation: Int32) -> Bool {
        while true {
            if flock(descriptor, operation) == 0 { return true }
            if errno != EINTR { return false }
        }
    }
}
