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

/// What the store's file is, judged from its bytes before SQLite touches it.
///
/// SQLite may write to a file it opens (rolling back a leftover journal, for one), so
/// a file that is not recognisably a JuiceMaker store is refused here, unopened.
enum StoreFile {
    /// `PRAGMA application_id` of every JuiceMaker store: "JUIC" in ASCII.
    static let applicationID: Int32 = 0x4A55_4943

    /// The path without its last component, as `NSString.deletingLastPathComponent`
    /// gave it ("/a/b" → "/a", "/a" → "/", "a" → ""); FoundationEssentials has none.
    static func parent(of path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.hasSuffix("/") { text = text.dropLast() }
        guard let slash = text.lastIndex(of: "/") else { return "" }
        if slash == text.startIndex { return "/" }
        var parent = text[..<slash]
        while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
        return String(parent)
    }

    /// Creates the missing directories above `path`, readable by the user only.
    static func createParentDirectories(of path: String) throws(StoreError) {
        try createDirectories(parent(of: path), reportingAs: path)
    }

    /// Creates `target` and its missing parents, readable by the user only; errors
    /// name `shownPath`.
    static func createDirectories(_ target: String, reportingAs shownPath: String) throws(StoreError) {
        guard !target.isEmpty else { return }
        var missing: [String] = []
        var directory = target
        while !directory.isEmpty, directory != "/", !FileManager.default.fileExists(atPath: directory) {
            missing.append(directory)
            directory = parent(of: directory)
        }
        for directory in missing.reversed() where mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw StoreError(.cannotCreateDirectory(directory: directory, .current(errno)), path: shownPath)
        }
    }

    /// Checks, without changing it, that the file at `path` is a JuiceMaker store
    /// SQLite may open, or that there is none yet (no file, an empty one, or one whose
    /// creation was interrupted) and one can be created there.
    static func inspect(_ path: String, latestVersion: Int32) throws(StoreError) {
        let directory = parent(of: path)
        let directoryShown = directory.isEmpty ? "." : directory
        var info = stat()
        guard stat(path, &info) == 0 else {
            let error = errno
            guard error == ENOENT else { throw unreachable(path, error) }
            guard access(directoryShown, W_OK | X_OK) == 0 else {
                throw StoreError(.directoryNotWritable(directory: directoryShown, fileExists: false), path: path)
            }
            return
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(.notARegularFile, path: path)
        }
        guard access(path, R_OK | W_OK) == 0 else {
            throw StoreError(.fileNotReadableWritable, path: path)
        }
        guard access(directoryShown, W_OK | X_OK) == 0 else {
            throw StoreError(.directoryNotWritable(directory: directoryShown, fileExists: true), path: path)
        }
        let size = Int64(info.st_size)
        if size == 0 || interruptedWhileEmpty(path) { return }
        let header = try readHeader(path, length: 100)
        try check(header, size: size, path: path, latestVersion: latestVersion)
    }

    /// Whether a process died while writing to a file that was empty before: its
    /// rollback journal (https://sqlite.org/fileformat.html#the_rollback_journal) says
    /// the database had 0 pages. Rolling that back loses nothing but the interrupted
    /// write, so the file counts as new; most often a store killed while being created.
    private static func interruptedWhileEmpty(_ path: String) -> Bool {
        guard let journal = try? readHeader(path + "-journal", length: 20), journal.count == 20 else { return false }
        let magic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
        return journal.starts(with: magic) && bigEndian(journal, at: 16) == 0
    }

    private static func readHeader(_ path: String, length: Int) throws(StoreError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreachable(path, errno) }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: length)
        let count = header.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, length) }
        guard count >= 0 else { throw unreachable(path, errno) }
        return Array(header.prefix(count))
    }

    /// Judges SQLite's 100-byte file header (https://sqlite.org/fileformat.html#the_database_header).
    private static func check(_ header: [UInt8], size: Int64, path: String, latestVersion: Int32) throws(StoreError) {
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw StoreError(.notADatabase(size: size), path: path)
        }
        let applicationID = Int32(bitPattern: bigEndian(header, at: 68))
        guard applicationID == Self.applicationID else {
            throw StoreError(.foreignDatabase(applicationID: UInt32(bitPattern: applicationID)), path: path)
        }
        // The header's user_version may lag the write-ahead log, never lead it, so a
        // newer one here is final; an older one is checked again once SQLite has opened.
        let version = Int32(bitPattern: bigEndian(header, at: 60))
        guard version <= latestVersion else { throw newer(version, latest: latestVersion, path: path) }
        let rawPageSize = Int64(header[16]) << 8 | Int64(header[17])
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        let pages = Int64(bigEndian(header, at: 28))
        let sizeIsValid = header[24..<28] == header[92..<96] && pages > 0
        // A file shorter than its header says is cut short, unless a write-ahead log
        // holds the rest (a checkpoint was interrupted).
        if sizeIsValid, pages * pageSize > size, !hasWriteAheadLog(path) {
            throw StoreError(.cutShort(size: size, expected: pages * pageSize), path: path)
        }
    }

    static func newer(_ version: Int32, latest: Int32, path: String) -> StoreError {
        StoreError(.newerSchema(found: version, supported: latest), path: path)
    }

    private static func hasWriteAheadLog(_ path: String) -> Bool {
        var info = stat()
        return stat(path + "-wal", &info) == 0 && info.st_size > 0
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func unreachable(_ path: String, _ error: Int32) -> StoreError {
        StoreError(.cannotOpen(.current(error)), path: path)
    }

    /// `$XDG_STATE_HOME/juice-maker/juice.db`, else `~/.local/state/juice-maker/juice.db`.
    static func defaultPath(environment: [String: String]) -> String {
        // The XDG spec says relative values are invalid and must be ignored.
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/juice-maker/juice.db"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/state/juice-maker/juice.db"
    }
}
