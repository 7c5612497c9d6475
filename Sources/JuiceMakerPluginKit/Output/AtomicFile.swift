#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Foundation
#endif
import JuiceMakerCore
import JuicePrimitives

/// A file written so that what is at the path is never damaged (`juice report --svg`,
/// the metrics textfile): a reader of a file sees the old content or the new, never a part, and
/// something that is not a file is never replaced. Every write passes the file gate
/// (`FileGate`) first: never onto the store's files, never to a kind that could make
/// `juice` wait.
///
/// - A missing path or a regular file: the bytes go to a temporary file beside it,
///   which is then renamed over it. A file replaced keeps its mode and owner (its
///   group, when only that may be set: a process not run by root cannot give a file away).
/// - A symbolic link is followed: these rules apply to its target, and the link stays.
/// - A character device (`/dev/null`, a terminal) or a FIFO a process reads: written
///   through (opened without waiting, the bytes written), so `/dev/null` stays a device
///   and a FIFO's reader gets them. A FIFO nobody reads is refused at once.
/// - A socket, a directory or a block device: refused.
///
/// POSIX calls rather than `Data.write(to:options: .atomic)`, whose file machinery
/// links FoundationEssentials' error and URL tables into every `juice` start.
package enum AtomicFile {
    /// What the gate refused, or the `errno` of the step that failed.
    package struct Failure: Error, Equatable {
        package let refusal: FileRefusal

        package init(code: Int32) {
            refusal = .system(code)
        }

        package init(_ refusal: FileRefusal) {
            self.refusal = refusal
        }

        /// What went wrong ("No such file or directory", "it is a FIFO, not a regular file; …").
        package var reason: String { refusal.message.english }
    }

    /// Writes `bytes` to what `path` names, by the rules above, through `gate`. A new
    /// file gets mode 0666 less the umask; on failure nothing at the path has changed
    /// and no temporary file is left (a device may have taken part of the bytes).
    package static func write(_ bytes: [UInt8], to path: String, gate: FileGate) throws(Failure) {
        do throws(FileRefusal) {
            try gate.checkOutput(path)
        } catch {
            throw Failure(error)
        }
        var status = stat()
        if stat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG: try replace(bytes, at: try target(of: path), gate: gate)
            default: try writeThrough(bytes, to: path, gate: gate)
            }
        } else if errno == ENOENT {
            // Missing, or a link to something missing: created at the link's end.
            try replace(bytes, at: try target(of: path), gate: gate)
        } else {
            throw Failure(code: errno)
        }
    }

    /// Where a chain of symbolic links starting at `path` ends (`path` itself when it
    /// is not a link); a relative link is read from its own directory.
    private static func target(of path: String) throws(Failure) -> String {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { throw Failure(code: count < 0 ? errno : ENOENT) }
            let link = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let directory = PathText.parent(of: current)
            current = link.hasPrefix("/") || directory.isEmpty ? link : PathText.join(directory, link)
        }
        throw Failure(code: ELOOP)
    }

    /// Opens the device or FIFO at `path` through the gate (without waiting, creating or
    /// truncating it), and writes every byte.
    private static func writeThrough(_ bytes: [UInt8], to path: String, gate: FileGate) throws(Failure) {
        let descriptor: Int32
        do throws(FileRefusal) {
            descriptor = try gate.openForWritingThrough(path)
        } catch {
            throw Failure(error)
        }
        var failure = writeAll(bytes, to: descriptor)
        if close(descriptor) != 0, failure == 0, errno != EINTR { failure = errno }
        guard failure == 0 else { throw Failure(code: failure) }
    }

    /// The temporary file beside `path`, then renamed over it.
    private static func replace(_ bytes: [UInt8], at path: String, gate: FileGate) throws(Failure) {
        // The link's end is judged too: it may name the store by another spelling.
        do throws(FileRefusal) {
            try gate.checkOutput(path)
        } catch {
            throw Failure(error)
        }
        let directory = PathText.parent(of: path)
        let name = ".\(PathText.lastComponent(of: path)).\(getpid()).tmp"
        let temporary = directory.isEmpty ? name : PathText.join(directory, name)
        // A leftover of a process that had this pid before is ours to replace.
        var descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        if descriptor < 0, errno == EEXIST, unlink(temporary) == 0 {
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else { throw Failure(code: errno) }
        var failure = keepOwnerAndMode(of: path, on: descriptor)
        if failure == 0 { failure = writeAll(bytes, to: descriptor) }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw Failure(code: failure)
        }
    }

    /// Gives the new file at `descriptor` the owner and mode of the file at `path`, if
    /// there is one, so replacing a private file never makes it readable by others;
    /// the `errno` of a failure, 0 otherwise. The owner is kept as far as the system
    /// lets this process set it: a file of another user keeps its group when it can.
    private static func keepOwnerAndMode(of path: String, on descriptor: Int32) -> Int32 {
        var existing = stat()
        guard stat(path, &existing) == 0 else { return 0 }
        if fchown(descriptor, existing.st_uid, existing.st_gid) != 0 {
            _ = fchown(descriptor, uid_t.max, existing.st_gid)  // uid -1: unchanged
        }
        return fchmod(descriptor, existing.st_mode & 0o777) == 0 ? 0 : errno
    }
}
