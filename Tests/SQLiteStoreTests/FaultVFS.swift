import CFaultVFS
import Foundation
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
    /// `persistent` every write, sync and truncate after it too. 0 fails nothing.
    func arm(_ kind: Kind, at call: Int, persistent: Bool = false) {
        juice_fault_vfs_arm(handle, kind.fault, Int64(call), persistent ? 1 : 0)
    }

    /// Counts without failing anything.
    func disarm() { arm(.write, at: 0) }

    /// Calls of `kind` since the last `arm`.
    func count(_ kind: Kind) -> Int { Int(juice_fault_vfs_count(handle, kind.fault)) }

    /// Calls failed since the last `arm`.
    var failures: Int { Int(juice_fault_vfs_failures(handle)) }
}
