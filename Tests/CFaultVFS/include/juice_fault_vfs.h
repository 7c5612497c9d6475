#ifndef JUICE_FAULT_VFS_H
#define JUICE_FAULT_VFS_H

/// A SQLite VFS for the tests that fails the Nth write, sync or truncate.
///
/// It wraps the default VFS and counts, across every file opened through it (the
/// database, its -wal and -journal), the calls of `xWrite`, `xSync` and `xTruncate`.
/// Armed at call N of a kind, that call does nothing and answers SQLITE_IOERR_WRITE,
/// SQLITE_IOERR_FSYNC or SQLITE_IOERR_TRUNCATE; with `persistent`, so does every
/// later write, sync and truncate of any kind (a disk that went away); with `torn`,
/// the failing write first writes the first half of its bytes. Each
/// registered VFS counts on its own, so tests running at once in one process each
/// use their own (never the default VFS).

typedef enum {
    JUICE_FAULT_WRITE = 0,
    JUICE_FAULT_SYNC = 1,
    JUICE_FAULT_TRUNCATE = 2,
} juice_fault_kind;

typedef struct juice_fault_vfs juice_fault_vfs;

/// Registers a VFS named `name` (not as the default) over the default one; NULL
/// when there is no default VFS, no memory, or registering fails.
juice_fault_vfs *juice_fault_vfs_register(const char *name);

/// Unregisters and frees it: no connection may still use it.
void juice_fault_vfs_unregister(juice_fault_vfs *vfs);

/// Counts from 0 again, and fails call `n` (1-based) of `kind` from now on; `n` 0
/// fails nothing (counting only). A fault already given is forgotten. `torn`: the
/// failing write (if `kind` is a write) first writes the first half of its bytes.
void juice_fault_vfs_arm(juice_fault_vfs *vfs, juice_fault_kind kind, long long n, int persistent, int torn);

/// Calls of `kind` since the last `arm`, failed ones included.
long long juice_fault_vfs_count(const juice_fault_vfs *vfs, juice_fault_kind kind);

/// Calls failed since the last `arm`.
long long juice_fault_vfs_failures(const juice_fault_vfs *vfs);

#endif
