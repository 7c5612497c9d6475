#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Foundation
#endif
import JuiceMakerCore

/// A whole file written so that a reader sees the old content or the new, never a
/// part: the bytes go to a temporary file beside the target, which is then renamed over
/// it. POSIX calls rather than `Data.write(to:options: .atomic)`, whose file machinery
/// links FoundationEssentials' error and URL tables into every `juice` start (README,
/// Measured).
public enum AtomicFile {
    /// The `errno` of the step that failed.
    public struct Failure: Error, Equatable {
        public let code: Int32

        public init(code: Int32) {
            self.code = code
        }

        /// The system's text for the error ("No such file or directory").
        public var reason: String { String(cString: strerror(code)) }
    }

    /// Writes `bytes` to `path` (created with mode 0666 less the umask, or replacing
    /// what is there); on failure nothing at `path` has changed and no temporary file
    /// is left. The temporary file is named after the process: threads of one process
    /// that write the same `path` take turns.
    public static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        let directory = PathText.parent(of: path)
        let name = ".\(PathText.lastComponent(of: path)).\(getpid()).tmp"
        let temporary = directory.isEmpty ? name : PathText.join(directory, name)
        // A leftover of a process that had this pid before is ours to replace.
        var descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        if descriptor < 0, errno == EEXIST, unlink(temporary) == 0 {
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else { throw Failure(code: errno) }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw Failure(code: failure)
        }
    }

    /// `write(2)`, which this type's own `write` hides.
    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #elseif canImport(Musl)
        Musl.write(descriptor, bytes, count)
        #else
        Darwin.write(descriptor, bytes, count)
        #endif
    }
}
