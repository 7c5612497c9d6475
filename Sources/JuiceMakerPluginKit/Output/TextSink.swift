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
import Locking

/// Somewhere text goes: a terminal, a file, a pipe. Writes are whole and ordered.
public protocol TextSink: Sendable {
    /// Writes `text` as one unit. Never throws: a sink that cannot write reports it
    /// once (see `FileSink`) and drops the text.
    func write(_ text: String)
    /// Whether the sink is an interactive terminal (decides colour).
    var isTerminal: Bool { get }
}

/// Writes to a file descriptor (stdout, stderr or an opened file) with one
/// `write(2)` loop per call under a lock, so lines from several threads never mix.
package final class FileSink: TextSink {
    private let descriptor: Int32
    private let closesOnDeinit: Bool
    private let lock = Locked<Bool>(false)  // whether a failure was already reported
    private let onFailure: @Sendable (String) -> Void
    package let isTerminal: Bool

    /// Standard output.
    package static func standardOutput(onFailure: @escaping @Sendable (String) -> Void = { _ in }) -> FileSink {
        FileSink(descriptor: 1, closesOnDeinit: false, onFailure: onFailure)
    }

    /// Standard error.
    package static func standardError() -> FileSink {
        FileSink(descriptor: 2, closesOnDeinit: false, onFailure: { _ in })
    }

    /// Wraps an open descriptor. `onFailure` hears the first write error only.
    package init(descriptor: Int32, closesOnDeinit: Bool, onFailure: @escaping @Sendable (String) -> Void) {
        self.descriptor = descriptor
        self.closesOnDeinit = closesOnDeinit
        self.onFailure = onFailure
        self.isTerminal = isatty(descriptor) == 1
    }

    /// The directory `path` would be created in, when that directory does not exist
    /// (a file cannot be created there: `FileSink(appendingTo:)` creates no
    /// directories); `nil` when it exists or cannot be looked at.
    package static func missingDirectory(for path: String) -> String? {
        let directory = PathText.parent(of: path)
        guard !directory.isEmpty else { return nil }
        var info = stat()
        guard stat(directory, &info) != 0, errno == ENOENT else { return nil }
        return directory
    }

    /// Opens `path` for appending (creating it with mode 0600) through `gate`: a
    /// regular file or a character device, never the store's files, never waited on.
    package convenience init(appendingTo path: String, gate: FileGate, onFailure: @escaping @Sendable (String) -> Void) throws(FileRefusal) {
        self.init(descriptor: try gate.openForAppending(path), closesOnDeinit: true, onFailure: onFailure)
    }

    deinit {
        if closesOnDeinit { close(descriptor) }
    }

    package func write(_ text: String) {
        var failure: String?
        lock.withLock { reported in
            let bytes = Array(text.utf8)
            if bytes.isEmpty { return }
            let error = writeAll(bytes, to: descriptor)
            if error != 0, !reported {
                reported = true
                failure = String(cString: strerror(error))
            }
        }
        if let failure { onFailure(failure) }
    }
}
