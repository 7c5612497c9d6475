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

/// What the store's file is, judged from its bytes before SQLite touches it.
///
/// SQLite may write to a file it opens (rolling back a leftover journal, for one), so
/// a file that is not recognisably a JuiceMaker store is refused here, unopened.
enum StoreFile {
    /// `PRAGMA application_id` of every JuiceMaker store: "JUIC" in ASCII.
    static let applicationID: Int32 = 0x4A55_4943

    /// Creates the missing directories above `path`, readable by the user only.
    static func createParentDirectories(of path: String) throws(StoreError) {
        try createDirectories(PathText.parent(of: path), reportingAs: path)
    }

    /// Creates `target` and its missing parents, readable by the user only; errors
    /// name `shownPath`.
    static func createDirectories(_ target: String, reportingAs shownPath: String) throws(StoreError) {
        guard !target.isEmpty else { return }
        var missing: [String] = []
        var directory = target
        while !directory.isEmpty, directory != "/", access(directory, F_OK) != 0 {
            missing.append(directory)
            directory = PathText.parent(of: directory)
        }
        for directory in missing.reversed() where mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw StoreError(.cannotCreateDirectory(directory: directory, .current(errno)), path: shownPath)
        }
    }

    /// What `inspect` found at a store's path.
    enum Inspection: Equatable {
        /// No store yet (no file, an empty one, or one whose creation was
        /// interrupted): one is created there.
        case create
        /// A JuiceMaker store this user may read and write.
        case open
        /// A JuiceMaker store this user may only read.
        case openReadOnly(StoreError.ReadOnlyCause)
    }

    /// Checks, without changing it, that the file at `path` is a JuiceMaker store
    /// SQLite may open, or that there is none yet (no file, an empty one, or one whose
    /// creation was interrupted) and one can be created there. A store that can be
    /// read but not written is `openReadOnly` when `allowReadOnly`, else refused. With
    /// `takesEmptyDatabase` (a store opened to be written), a database without tables is
    /// `create` too: most often a store another process is creating.
    static func inspect(
        _ path: String, latestVersion: Int32, allowReadOnly: Bool = false, takesEmptyDatabase: Bool = false
    ) throws(StoreError) -> Inspection {
        let directory = PathText.parent(of: path)
        let directoryShown = directory.isEmpty ? "." : directory
        var info = stat()
        guard stat(path, &info) == 0 else {
            let error = errno
            guard error == ENOENT || error == ENOTDIR else { throw unreachable(path, error) }
            try requireDirectory(directoryShown, store: path)
            guard access(directoryShown, W_OK | X_OK) == 0 else {
                throw StoreError(.directoryNotWritable(directory: directoryShown, fileExists: false), path: path)
            }
            return .create
        }
        if let kind = FileKind(mode: info.st_mode) {
            throw StoreError(.notARegularFile(kind), path: path)
        }
        var readOnly: StoreError.ReadOnlyCause?
        if access(path, R_OK | W_OK) != 0 {
            let error = errno
            guard access(path, R_OK) == 0, allowReadOnly else { throw StoreError(.fileNotReadableWritable, path: path) }
            readOnly = error == EROFS ? .fileSystemReadOnly : .fileNotWritable
        } else if access(directoryShown, W_OK | X_OK) != 0 {
            let error = errno
            guard allowReadOnly else {
                throw StoreError(.directoryNotWritable(directory: directoryShown, fileExists: true), path: path)
            }
            readOnly = error == EROFS ? .fileSystemReadOnly : .directoryNotWritable(directoryShown)
        }
        let size = Int64(info.st_size)
        if size == 0 || interruptedWhileEmpty(path) {
            // Nothing to read, and nothing can be created where this user may not write.
            guard let readOnly else { return .create }
            if case .directoryNotWritable = readOnly {
                throw StoreError(.directoryNotWritable(directory: directoryShown, fileExists: true), path: path)
            }
            throw StoreError(.fileNotReadableWritable, path: path)
        }
        let header = try readHeader(path, length: 100) ?? []
        if takesEmptyDatabase, readOnly == nil, isEmptyDatabase(header) {
            // Nothing but a header: a store being created (SQLite writes page 1 before
            // the tables, to keep free pages apart) or an empty database, which holds
            // nothing to lose; SQLite's locks order this process after its creator.
            return .create
        }
        do throws(StoreError) {
            try check(header, size: size, path: path, latestVersion: latestVersion)
        } catch  where error.isCutShort && isBeingWritten(path, sizeWas: size) {
            // Another process is creating the file (its pages go out after page 1, whose
            // header names them all): SQLite's locks order this one after it.
            return readOnly.map { .openReadOnly($0) } ?? (interruptedWhileEmpty(path) ? .create : .open)
        }
        return readOnly.map { .openReadOnly($0) } ?? .open
    }

    /// Whether `header` is an SQLite file's of one page, with no application id and no
    /// schema version: a database without tables.
    private static func isEmptyDatabase(_ header: [UInt8]) -> Bool {
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else { return false }
        return bigEndian(header, at: 28) == 1 && header[24..<28] == header[92..<96] && bigEndian(header, at: 60) == 0
            && bigEndian(header, at: 68) == 0
    }

    /// Whether the file at `path` changed size since it was `sizeWas` bytes, or a write
    /// to it as an empty file is under way: a process is writing it, so a header that
    /// names more pages than were there is not a file cut short.
    private static func isBeingWritten(_ path: String, sizeWas: Int64) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return Int64(info.st_size) != sizeWas || interruptedWhileEmpty(path)
    }

    /// Throws `directoryMissing` unless `directory` exists and is a directory.
    static func requireDirectory(_ directory: String, store: String) throws(StoreError) {
        var info = stat()
        if stat(directory, &info) != 0 {
            let error = errno
            guard error == ENOENT || error == ENOTDIR else { return }
            // The nearest ancestor that exists says whether a file is in the way.
            var ancestor = PathText.parent(of: directory)
            var isFile = error == ENOTDIR
            while !isFile, !ancestor.isEmpty, ancestor != "/" {
                var above = stat()
                if stat(ancestor, &above) == 0 {
                    isFile = above.st_mode & S_IFMT != S_IFDIR
                    break
                }
                ancestor = PathText.parent(of: ancestor)
            }
            throw StoreError(.directoryMissing(directory: directory, isFile: isFile), path: store)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw StoreError(.directoryMissing(directory: directory, isFile: true), path: store)
        }
    }

    /// Creates the empty file a new store is written into, readable and writable by
    /// the user only (SQLite gives its -wal, -shm and -journal files the same mode).
    /// A file someone else created meanwhile is left as it is.
    static func createEmpty(_ path: String) throws(StoreError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let error = errno
        guard error == EEXIST else { throw unreachable(path, error) }
        // An empty file taken as a new store gets the mode a new store gets (SQLite
        // gives its -wal and -shm the file's mode, so before SQLite opens it).
        let existing = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard existing >= 0 else { return }
        var info = stat()
        if fstat(existing, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid() {
            _ = fchmod(existing, 0o600)
        }
        close(existing)
    }

    /// The error for a path that holds no store to read: `emptyFile` for an empty
    /// file (or one whose creation was interrupted), `cannotOpen` for no file.
    static func noStore(at path: String) -> StoreError {
        guard access(path, F_OK) == 0 else { return unreachable(path, ENOENT) }
        return StoreError(.emptyFile, path: path)
    }

    /// Throws `noStore(at:)` unless the file at `path` has content; anything else
    /// (a file that is not a store) is for opening to judge.
    static func requireContent(_ path: String) throws(StoreError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let error = errno
            throw unreachable(path, error)
        }
        if info.st_mode & S_IFMT == S_IFREG, info.st_size == 0 || interruptedWhileEmpty(path) { throw noStore(at: path) }
        // A database without tables is no store to read (opening would make it one).
        if isEmptyDatabase((try? readHeader(path, length: 100)) ?? []) {
            throw StoreError(.foreignDatabase(applicationID: 0), path: path)
        }
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

    /// The first `length` bytes of the file at `path` (fewer if it is shorter), in one
    /// `read`, through the file gate (never waited on); anything but a regular file (a
    /// directory, a FIFO) is `notARegularFile`, or with `regularOnly` nil. Also how a
    /// damage mark is read (`DamageMark.read`).
    static func readHeader(_ path: String, length: Int, regularOnly: Bool = false) throws(StoreError) -> [UInt8]? {
        let descriptor: Int32
        do throws(FileRefusal) {
            descriptor = try FileGate.openForReading(path)
        } catch {
            switch error {
            case .notRegular(let kind):
                if regularOnly { return nil }
                throw StoreError(.notARegularFile(kind), path: path)
            case .system(let code): throw unreachable(path, code)
            case .storeFile, .tooLarge, .noReader: throw unreachable(path, EINVAL)
            }
        }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: length)
        let count = header.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, length) }
        guard count >= 0 else { throw unreachable(path, errno) }
        return Array(header.prefix(count))
    }

    /// Judges SQLite's 100-byte file header (https://sqlite.org/fileformat.html#the_database_header).
    ///
    /// Without `identity`, the application id and schema version are not judged: for
    /// recovery of a file whose pages hold a store's tables under a damaged header.
    static func check(_ header: [UInt8], size: Int64, path: String, latestVersion: Int32, identity: Bool = true) throws(StoreError) {
        guard header.count == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw StoreError(.notADatabase(size: size), path: path)
        }
        let applicationID = Int32(bitPattern: bigEndian(header, at: 68))
        guard applicationID == Self.applicationID || !identity else {
            throw StoreError(.foreignDatabase(applicationID: UInt32(bitPattern: applicationID)), path: path)
        }
        // The header's user_version may lag the write-ahead log, never lead it, so a
        // newer one here is final; an older one is checked again once SQLite has opened.
        let version = Int32(bitPattern: bigEndian(header, at: 60))
        guard version <= latestVersion || !identity else { throw newer(version, latest: latestVersion, path: path) }
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

    static func hasWriteAheadLog(_ path: String) -> Bool {
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
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? accountHome()
        return home + "/.local/state/juice-maker/juice.db"
    }

    /// The home directory the user database gives this process's user (`getpwuid_r`),
    /// for a process started without `HOME`; "/" when it has none.
    static func accountHome() -> String {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found)
        guard status == 0, found != nil, let directory = entry.pw_dir, directory.pointee != 0 else { return "/" }
        return String(cString: directory)
    }
}

extension StoreError {
    /// The file is shorter than its header says.
    fileprivate var isCutShort: Bool {
        if case .cutShort = reason { return true }
        return false
    }
}
