import CFaultVFS
import CSQLite
import Foundation
import JuiceTestSupport
import Testing

/// A SQLite VFS of one test's own (`Tests/CFaultVFS`): it fails the Nth write, sync or
/// truncate made through it, across every file the store opens. Not the default
/// VFS: a store uses it only when its options name it (`SQLiteStore.Options.vfs`), so
/// tests running at once never see each other's faults.
final class FaultVFS {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case write, sync, truncate

        var fault: juice_fault_kind {
            switch self {
            case .write: JUICE_FAULT_WRITE
            case .sync: JUICE_FAULT_SYNC
            case .truncate: JUICE_FAULT_TRUNCATE
            }
        }

        var testDescription: String { rawValue }
    }

    /// The name the store's options give.
    let name = "juice-fault-" + UUID().uuidString
    private let handle: OpaquePointer

    /// Registers it; `unregister()` once every store that used it is closed.
    init() throws {
        handle = try #require(juice_fault_vfs_register(name), "the fault VFS could not be registered")
    }

    func unregister() { juice_fault_vfs_unregister(handle) }

    /// Counts from 0 again; call `call` (1-based) of `kind` fails, and with
    /// `persistent` every write, sync and truncate after it too; `torn`, a write
    /// that fails writes the first half of its bytes first. 0 fails nothing.
    func arm(_ kind: Kind, at call: Int, persistent: Bool = false, torn: Bool = false) {
        juice_fault_vfs_arm(handle, kind.fault, Int64(call), persistent ? 1 : 0, torn ? 1 : 0)
    }

    /// Counts without failing anything.
    func disarm() { arm(.write, at: 0) }

    /// Calls of `kind` since the last `arm`.
    func count(_ kind: Kind) -> Int { Int(juice_fault_vfs_count(handle, kind.fault)) }

    /// Calls failed since the last `arm`.
    var failures: Int { Int(juice_fault_vfs_failures(handle)) }
}

/// Which calls fail: one kind, once or from then on, a failing write torn or not.
struct Fault: Sendable, CustomTestStringConvertible {
    let kind: FaultVFS.Kind
    /// Every write, sync and truncate after it fails too: a disk that went away, or
    /// (with a crash image taken when the error comes back) a process that died.
    let persistent: Bool
    /// The failing write writes half of its bytes first.
    var torn = false

    /// Every kind, once and from then on; writes torn too.
    static let all: [Fault] =
        FaultVFS.Kind.allCases.flatMap { kind in [false, true].map { Fault(kind: kind, persistent: $0) } }
        + [false, true].map { Fault(kind: .write, persistent: $0, torn: true) }

    /// Once only (for a process that goes on).
    static let once = all.filter { !$0.persistent }

    var testDescription: String { "\(torn ? "torn " : "")\(kind)\(persistent ? " from then on" : " once")" }
}

/// The fault VFS itself, called as SQLite calls it: it counts, fails the call it
/// was armed at with the right error, once or from then on, and tears a write.
@Suite(.tags(.unit), .offPool) struct FaultVFSTests {
    /// SQLite's extended codes, which Swift does not import from sqlite3.h.
    static let writeError = SQLITE_IOERR | 3 << 8, syncError = SQLITE_IOERR | 4 << 8, truncateError = SQLITE_IOERR | 6 << 8

    @Test func failsTheArmedCallOnceOrFromThenOnAndTearsAWrite() throws {
        let directory = try TemporaryDirectory()
        let vfs = try FaultVFS()
        defer { vfs.unregister() }
        let found = try #require(sqlite3_vfs_find(vfs.name))
        let memory = UnsafeMutableRawPointer.allocate(byteCount: Int(found.pointee.szOsFile), alignment: 16)
        defer { memory.deallocate() }
        let file = memory.bindMemory(to: sqlite3_file.self, capacity: 1)
        // SQLite hands xOpen a name that ends in two NULs (its URI parameters).
        let name = Array((directory.file("data") + "\0\0").utf8CString)
        var flags: Int32 = 0
        let opened = name.withUnsafeBufferPointer { name in
            found.pointee.xOpen(found, name.baseAddress, file, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MAIN_DB, &flags)
        }
        try #require(opened == SQLITE_OK)
        let methods = try #require(file.pointee.pMethods).pointee
        defer { _ = methods.xClose(file) }
        let bytes = [UInt8](repeating: 7, count: 100)
        func write(at offset: Int64) -> Int32 { bytes.withUnsafeBytes { methods.xWrite(file, $0.baseAddress, 100, offset) } }
        func size() -> Int64 {
            var size: Int64 = -1
            _ = methods.xFileSize(file, &size)
            return size
        }

        vfs.arm(.write, at: 2, torn: true)
        #expect(write(at: 0) == SQLITE_OK)
        #expect(write(at: 100) == Self.writeError)
        #expect(size() == 150, "the torn write is not half written")
        #expect(write(at: 100) == SQLITE_OK, "a fault armed once failed twice")
        #expect(methods.xSync(file, SQLITE_SYNC_NORMAL) == SQLITE_OK)
        #expect(vfs.count(.write) == 3 && vfs.count(.sync) == 1 && vfs.failures == 1)

        vfs.arm(.sync, at: 1, persistent: true)
        #expect(methods.xSync(file, SQLITE_SYNC_NORMAL) == Self.syncError)
        #expect(write(at: 200) == Self.writeError, "the disk came back")
        #expect(methods.xTruncate(file, 100) == Self.truncateError)
        #expect(size() == 200, "a failed write or truncate changed the file")
        #expect(vfs.failures == 3 && vfs.count(.write) == 1)

        vfs.disarm()
        #expect(methods.xTruncate(file, 100) == SQLITE_OK)
        #expect(size() == 100)
    }
}
