import Foundation
import JuiceMakerCore
import SQLiteStore
import Testing

/// Damaged stores for the tests: real files, bytes flipped on disk.
enum Damage {
    static let pageSize = 4096

    /// A store at `path` with `changes` orders and restocks (about three journal rows
    /// each), closed.
    static func makeHistory(at path: String, changes: Int = 40) throws {
        let maker = try JuiceMaker(store: SQLiteStore(path: path, durability: .normal))
        for step in 0..<changes {
            if step % 4 == 3 {
                try maker.add(8, of: .banana)
            } else {
                try maker.make(step % 2 == 0 ? .banana : .mangoKiwi)
            }
            if step % 10 == 9 { try maker.add(10, of: .kiwi); try maker.add(10, of: .mango) }
        }
    }

    /// A store at `path` with a history whose first journal leaf was flipped after a
    /// clean close, the file's size and time kept (damage nothing has seen yet), opened
    /// without the periodic check.
    static func unseenDamage(at path: String) throws -> SQLiteStore {
        try makeHistory(at: path)
        try flip(path, page: firstJournalLeaf(of: path), keepingTime: true)
        return try SQLiteStore(path: path, options: .init(checkEvery: 0))
    }

    /// The first leaf page of the journal table (oldest rows; not the last leaf, which
    /// new rows go to), found behind the store's back with `dbstat`; page 12 (the
    /// issue's offset 11 × 4096) when this SQLite has no `dbstat`.
    static func firstJournalLeaf(of path: String) -> Int {
        let raw = try? RawDatabase(path, readOnly: true)
        let found = try? raw?.value("SELECT pageno FROM dbstat WHERE name = 'journal' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1")
        return found.flatMap { Int($0) } ?? 12
    }

    /// Flips (XOR 0xFF) `count` bytes at `start` of page `page` (1-based; its first
    /// byte by default, as the repro does); with `keepingTime`, the file's modification time is put
    /// back, so only the bytes tell.
    static func flip(_ path: String, page: Int, at start: Int = 0, count: Int = 12, keepingTime: Bool = false) throws {
        var before = stat()
        stat(path, &before)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let offset = UInt64((page - 1) * pageSize + start)
        try handle.seek(toOffset: offset)
        let bytes = try handle.read(upToCount: count) ?? Data()
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(bytes.map { $0 ^ 0xFF }))
        try handle.synchronize()
        try handle.close()
        if keepingTime {
            var times = [before.st_atim, before.st_mtim]
            _ = utimensat(AT_FDCWD, path, &times, 0)
        }
    }

    /// The root page of `table`, as the store's schema says.
    static func rootPage(of table: String, in path: String) throws -> Int {
        let raw = try RawDatabase(path, readOnly: true)
        let root = Int(try raw.value("SELECT rootpage FROM sqlite_schema WHERE name = '\(table)'"))
        return try #require(root)
    }

    /// A copy of the file at `path`, its first `length` bytes only, as `copy`: a copy
    /// cut short.
    static func cut(_ path: String, to length: Int, as copy: String) throws {
        let bytes = try #require(contents(of: path))
        try bytes.prefix(length).write(to: URL(fileURLWithPath: copy))
    }

    /// The size of the file at `path`, or nil when there is none.
    static func size(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// When the file at `path` was last written (to the nanosecond), or nil when there is none.
    static func modified(_ path: String) -> Duration? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        #if os(Linux)
        return .seconds(info.st_mtim.tv_sec) + .nanoseconds(info.st_mtim.tv_nsec)
        #else
        return .seconds(info.st_mtimespec.tv_sec) + .nanoseconds(info.st_mtimespec.tv_nsec)
        #endif
    }

    /// Whether some process waits for a `flock` on the file at `path`: a blocked request
    /// is a `->` line of `/proc/locks` naming the file's inode. True where there is no
    /// `/proc/locks` (nothing to look at; the caller goes on at once).
    static func hasLockWaiter(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return true }
        let inode = String(info.st_ino)
        return locks.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.contains("->") && fields.contains { $0.split(separator: ":").last.map(String.init) == inode }
        }
    }

    /// The permission bits of `path`, or nil when there is no file.
    static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }
}
