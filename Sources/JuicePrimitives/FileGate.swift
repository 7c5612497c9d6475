#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a path names when it is not a regular file, for messages that say so: "not a
/// regular file (a FIFO)".
public enum FileKind: String, Sendable, Equatable {
    case directory
    case fifo
    case socket
    case characterDevice
    case blockDevice
    case other

    /// The kind of a file whose `st_mode` is `mode`; nil for a regular file.
    package init?(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .other
        }
    }

    /// The kind of the file `descriptor` is open on; nil for a regular file (or when
    /// `fstat` fails, which leaves the read to say why).
    package init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(mode: info.st_mode)
    }

    /// "a directory", "a FIFO", …
    package var english: String {
        switch self {
        case .directory: "a directory"
        case .fifo: "a FIFO"
        case .socket: "a socket"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .other: "neither a file nor a directory"
        }
    }

    /// The same in Korean.
    package var korean: String {
        switch self {
        case .directory: "디렉터리"
        case .fifo: "FIFO"
        case .socket: "소켓"
        case .characterDevice: "문자 장치"
        case .blockDevice: "블록 장치"
        case .other: "파일도 디렉터리도 아님"
        }
    }
}

/// Why the gate refused a path.
package enum FileRefusal: Error, Sendable, Equatable {
    /// The system refused (`open`, `read`, `write`): its `errno`.
    case system(Int32)
    /// Not a regular file, and not a kind this use accepts.
    case notRegular(FileKind)
    /// One of the open store's files (the store, its `-wal`, `-shm` or `-journal`):
    /// no output is ever written there. The file's path.
    case storeFile(String)
    /// Larger than what is read of this kind of file.
    case tooLarge(limit: Int)
    /// A FIFO no process has open for reading: writing to it would wait for one.
    case noReader

    /// The `errno` when the system refused, nil when the gate did.
    package var systemCode: Int32? {
        if case .system(let code) = self { code } else { nil }
    }

    /// What went wrong, in both languages, without the path (the caller names it).
    package var message: PluginMessage {
        switch self {
        case .system(let code):
            let text = String(cString: strerror(code))
            return PluginMessage(english: text, korean: text)
        case .notRegular(let kind):
            return PluginMessage(
                english: "it is \(kind.english), not a regular file; juice reads and writes regular files only (juice help files)",
                korean: "\(kind.korean)이며 일반 파일이 아닙니다. juice는 일반 파일만 읽고 씁니다(juice help files)")
        case .storeFile(let file):
            return PluginMessage(
                english: "it is the store's file \(file); choose another path (juice never writes output onto its store)",
                korean: "저장소 파일 \(file)입니다. 다른 경로를 쓰세요(juice는 저장소에 출력을 쓰지 않습니다)")
        case .noReader:
            return PluginMessage(
                english: "it is a FIFO no process is reading; start its reader first (juice never waits for one)",
                korean: "읽는 프로세스가 없는 FIFO입니다. 읽는 쪽을 먼저 시작하세요(juice는 기다리지 않습니다)")
        case .tooLarge(let limit):
            return PluginMessage(
                english: "it is larger than the \(limit) bytes juice reads of such a file",
                korean: "juice가 이런 파일에서 읽는 \(limit)바이트보다 큽니다")
        }
    }
}

/// The one gate every file `juice` opens passes through, for reading or writing: the
/// config, the store (and its backup and recovery targets), `report --svg`, the metrics
/// textfile, the logger's file, TLS files and NATS credentials.
///
/// - Nothing waits to open: every open is non-blocking (`O_NONBLOCK`), so a FIFO nobody
///   writes or reads, or a device, never hangs `juice`; then the descriptor's type is
///   checked. A library that opens a file by name itself (SQLite, OpenSSL, libnats) is
///   given the name only once the gate opened and checked it (`checkReadable`).
/// - Only regular files are read. Output goes to regular files, character devices
///   (`/dev/null`, a terminal) and FIFOs that a process is reading (`--svg >(…)`): a
///   FIFO nobody reads is refused at once (the open does not wait), and a write to one
///   whose reader stops waits a bounded time (`writeAll`). A socket, a directory or a
///   block device is refused with one line.
/// - No output is written to the open store or its `-wal`, `-shm` and `-journal` files:
///   an existing file is compared by device and inode (so a symbolic or hard link, or
///   another spelling of the path, is caught), one not there yet by its path with every
///   link in its directories resolved.
package struct FileGate: Sendable {
    /// The store's files: their paths with the directories' links resolved.
    private let guarded: [String]

    /// A gate that guards the store at `store` (nil: there is none, as for `config
    /// check` without a store).
    package init(guarding store: String?) {
        guard let store, let resolved = Self.resolved(store) else {
            guarded = []
            return
        }
        guarded = [resolved, resolved + "-wal", resolved + "-shm", resolved + "-journal"]
    }

    /// The store's files this gate guards.
    package var guardedFiles: [String] { guarded }

    // MARK: Reading

    /// Opens `path` for reading, without waiting, and returns the descriptor once it is
    /// known to be a regular file (it is left in blocking mode then: a regular file's
    /// reads never wait). The caller closes it.
    package static func openForReading(_ path: String) throws(FileRefusal) -> Int32 {
        try openRegular(path, flags: O_RDONLY)
    }

    /// Opens `path` with `flags` and `O_NONBLOCK` (so nothing waits to open), refuses
    /// anything but a regular file, and gives the descriptor back in blocking mode.
    private static func openRegular(_ path: String, flags extra: Int32) throws(FileRefusal) -> Int32 {
        var descriptor: Int32
        repeat {
            descriptor = open(path, extra | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o600)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw .system(errno) }
        if let kind = FileKind(descriptor: descriptor) {
            close(descriptor)
            throw .notRegular(kind)
        }
        blocking(descriptor)
        return descriptor
    }

    /// Clears `O_NONBLOCK` on `descriptor`.
    private static func blocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
    }

    /// The whole regular file at `path`, at most `limit` bytes.
    package static func contents(of path: String, limit: Int = 64 << 20) throws(FileRefusal) -> [UInt8] {
        let descriptor = try openForReading(path)
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .system(errno) }
            if count == 0 { return bytes }
            guard bytes.count + count <= limit else { throw .tooLarge(limit: limit) }
            bytes += buffer[0..<count]
        }
    }

    /// Checks that `path` is a regular file this process can read, by opening it as
    /// `openForReading` does: for a library that opens the file by name itself.
    package static func checkReadable(_ path: String) throws(FileRefusal) {
        close(try openForReading(path))
    }

    /// Opens `path` for reading and writing, creating it (user-only) if it is missing,
    /// without waiting; only a regular file: the store's own bookkeeping files (a
    /// subscriber's lease, the close record). The caller closes it.
    package static func openForUpdating(_ path: String) throws(FileRefusal) -> Int32 {
        try openRegular(path, flags: O_RDWR | O_CREAT)
    }

    // MARK: Writing

    /// Opens `path` for appending, creating it (mode 0600) if it is missing, without
    /// waiting; refuses a kind no output goes to, a FIFO nobody reads, and the store's
    /// files. A FIFO's descriptor stays non-blocking (its writes wait a bounded time,
    /// `writeAll`). The caller closes the descriptor.
    package func openForAppending(_ path: String) throws(FileRefusal) -> Int32 {
        try openForOutput(path, flags: O_CREAT | O_APPEND)
    }

    /// Opens what is at `path` for writing as `openForAppending` does, without creating,
    /// truncating or appending: a device or a FIFO written through.
    package func openForWritingThrough(_ path: String) throws(FileRefusal) -> Int32 {
        try openForOutput(path, flags: 0)
    }

    private func openForOutput(_ path: String, flags extra: Int32) throws(FileRefusal) -> Int32 {
        try checkOutput(path)
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_WRONLY | extra | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o600)
        } while descriptor < 0 && errno == EINTR
        // A FIFO without a reader: the non-blocking open says so at once.
        guard descriptor >= 0 else { throw errno == ENXIO ? .noReader : .system(errno) }
        do throws(FileRefusal) {
            try checkOutput(descriptor: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        if FileKind(descriptor: descriptor) != .fifo { Self.blocking(descriptor) }
        return descriptor
    }

    /// The kinds besides regular files that output may go to.
    private static let outputKinds: Set<FileKind> = [.characterDevice, .fifo]

    /// Checks that output may go to `path`: what is there (after links) is missing, a
    /// regular file, a character device or a FIFO, and none of the store's files.
    package func checkOutput(_ path: String) throws(FileRefusal) {
        var info = stat()
        if stat(path, &info) == 0 {
            if let kind = FileKind(mode: info.st_mode), !Self.outputKinds.contains(kind) { throw .notRegular(kind) }
            if let file = storeFile(device: info.st_dev, inode: info.st_ino) { throw .storeFile(file) }
        } else if errno != ENOENT {
            throw .system(errno)
        }
        if let resolved = Self.resolved(path), let file = guarded.first(where: { $0 == resolved }) { throw .storeFile(file) }
    }

    /// Checks a descriptor opened for output, as `checkOutput(_:)` checks a path.
    package func checkOutput(descriptor: Int32) throws(FileRefusal) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system(errno) }
        if let kind = FileKind(mode: info.st_mode), !Self.outputKinds.contains(kind) { throw .notRegular(kind) }
        if let file = storeFile(device: info.st_dev, inode: info.st_ino) { throw .storeFile(file) }
    }

    /// The guarded file that is this device and inode, if one is.
    private func storeFile(device: dev_t, inode: ino_t) -> String? {
        guarded.first { file in
            var info = stat()
            return stat(file, &info) == 0 && info.st_dev == device && info.st_ino == inode
        }
    }

    /// `path` with every symbolic link resolved: the whole path when it exists,
    /// otherwise its directory and then its last component; nil when neither resolves.
    static func resolved(_ path: String) -> String? {
        if let whole = realPath(path) { return whole }
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.utf8.index(after: $0)...]) } ?? path
        guard !name.isEmpty, let parent = realPath(directory.isEmpty ? "/" : directory) else { return nil }
        return parent == "/" ? "/" + name : parent + "/" + name
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
