#include "juice_fault_vfs.h"

#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define KINDS 3

struct juice_fault_vfs {
    /// Registered with SQLite; `pAppData` points back here.
    sqlite3_vfs vfs;
    /// The default VFS every call is handed to.
    sqlite3_vfs *base;
    char *name;
    _Atomic long long calls[KINDS];
    _Atomic long long failures;
    /// What `arm` asked for: which kind, which call (0: none), whether the disk stays gone.
    _Atomic int armedKind;
    _Atomic long long armedCall;
    _Atomic int persistent;
    /// Whether the armed write writes the first half of its bytes before failing.
    _Atomic int torn;
    /// Set once the armed call has failed.
    _Atomic int fired;
};

/// A file opened through the fault VFS: the base VFS's file follows it in memory.
typedef struct {
    sqlite3_file file;
    sqlite3_file *base;
    juice_fault_vfs *owner;
} fault_file;

static const int faultCodes[KINDS] = {SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC, SQLITE_IOERR_TRUNCATE};

/// Counts a call of `kind`: SQLITE_OK to let it through, else the error to answer;
/// `armed` says whether it is the armed call itself (not one after it).
static int fault_take(juice_fault_vfs *owner, juice_fault_kind kind, int *armed) {
    long long call = atomic_fetch_add(&owner->calls[kind], 1) + 1;
    int failing = 0;
    *armed = 0;
    if (atomic_load(&owner->fired) && atomic_load(&owner->persistent)) {
        failing = 1;
    } else if (atomic_load(&owner->armedKind) == (int)kind && atomic_load(&owner->armedCall) == call) {
        atomic_store(&owner->fired, 1);
        failing = 1;
        *armed = 1;
    }
    if (!failing) return SQLITE_OK;
    atomic_fetch_add(&owner->failures, 1);
    return faultCodes[kind];
}

static sqlite3_file *base_of(sqlite3_file *file) { return ((fault_file *)file)->base; }

static int fault_close(sqlite3_file *file) {
    sqlite3_file *base = base_of(file);
    return base->pMethods ? base->pMethods->xClose(base) : SQLITE_OK;
}

static int fault_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xRead(base, buffer, amount, offset);
}

static int fault_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    juice_fault_vfs *owner = ((fault_file *)file)->owner;
    int armed;
    int fault = fault_take(owner, JUICE_FAULT_WRITE, &armed);
    sqlite3_file *base = base_of(file);
    if (fault != SQLITE_OK) {
        // A torn write: what reached the disk before the error is half of it.
        if (armed && atomic_load(&owner->torn) && amount > 1) (void)base->pMethods->xWrite(base, buffer, amount / 2, offset);
        return fault;
    }
    return base->pMethods->xWrite(base, buffer, amount, offset);
}

static int fault_truncate(sqlite3_file *file, sqlite3_int64 size) {
    int armed;
    int fault = fault_take(((fault_file *)file)->owner, JUICE_FAULT_TRUNCATE, &armed);
    if (fault != SQLITE_OK) return fault;
    sqlite3_file *base = base_of(file);
    return base->pMethods->xTruncate(base, size);
}

static int fault_sync(sqlite3_file *file, int flags) {
    int armed;
    int fault = fault_take(((fault_file *)file)->owner, JUICE_FAULT_SYNC, &armed);
    if (fault != SQLITE_OK) return fault;
    sqlite3_file *base = base_of(file);
    return base->pMethods->xSync(base, flags);
}

static int fault_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xFileSize(base, size);
}

static int fault_lock(sqlite3_file *file, int level) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xLock(base, level);
}

static int fault_unlock(sqlite3_file *file, int level) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xUnlock(base, level);
}

static int fault_check_reserved_lock(sqlite3_file *file, int *reserved) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xCheckReservedLock(base, reserved);
}

static int fault_file_control(sqlite3_file *file, int operation, void *argument) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xFileControl(base, operation, argument);
}

static int fault_sector_size(sqlite3_file *file) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xSectorSize(base);
}

static int fault_device_characteristics(sqlite3_file *file) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xDeviceCharacteristics(base);
}

static int fault_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **memory) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xShmMap(base, region, size, extend, memory);
}

static int fault_shm_lock(sqlite3_file *file, int offset, int count, int flags) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xShmLock(base, offset, count, flags);
}

static void fault_shm_barrier(sqlite3_file *file) {
    sqlite3_file *base = base_of(file);
    base->pMethods->xShmBarrier(base);
}

static int fault_shm_unmap(sqlite3_file *file, int deleting) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xShmUnmap(base, deleting);
}

static int fault_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xFetch(base, offset, amount, pointer);
}

static int fault_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    sqlite3_file *base = base_of(file);
    return base->pMethods->xUnfetch(base, offset, pointer);
}

#define FAULT_METHODS(version)                                                                                  \
    {                                                                                                           \
        version, fault_close, fault_read, fault_write, fault_truncate, fault_sync, fault_file_size, fault_lock, \
            fault_unlock, fault_check_reserved_lock, fault_file_control, fault_sector_size,                     \
            fault_device_characteristics, fault_shm_map, fault_shm_lock, fault_shm_barrier, fault_shm_unmap,    \
            fault_fetch, fault_unfetch                                                                          \
    }

/// The methods of a file, one set per version the base VFS's files may have: SQLite
/// calls no method newer than the version says (shared memory from 2, fetch from 3).
static const sqlite3_io_methods faultMethods[3] = {FAULT_METHODS(1), FAULT_METHODS(2), FAULT_METHODS(3)};

static int fault_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    juice_fault_vfs *owner = vfs->pAppData;
    fault_file *opened = (fault_file *)file;
    opened->base = (sqlite3_file *)(opened + 1);
    opened->owner = owner;
    opened->file.pMethods = NULL;
    int code = owner->base->xOpen(owner->base, name, opened->base, flags, outFlags);
    // SQLite calls xClose whenever pMethods is set, also after a failed open: as the base file says.
    const sqlite3_io_methods *methods = opened->base->pMethods;
    if (methods) {
        int version = methods->iVersion < 1 ? 1 : methods->iVersion > 3 ? 3 : methods->iVersion;
        opened->file.pMethods = &faultMethods[version - 1];
    }
    return code;
}

static sqlite3_vfs *base_vfs(sqlite3_vfs *vfs) { return ((juice_fault_vfs *)vfs->pAppData)->base; }

static int fault_delete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    return base_vfs(vfs)->xDelete(base_vfs(vfs), name, syncDirectory);
}

static int fault_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    return base_vfs(vfs)->xAccess(base_vfs(vfs), name, flags, result);
}

static int fault_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    return base_vfs(vfs)->xFullPathname(base_vfs(vfs), name, size, out);
}

static void *fault_dl_open(sqlite3_vfs *vfs, const char *name) { return base_vfs(vfs)->xDlOpen(base_vfs(vfs), name); }

static void fault_dl_error(sqlite3_vfs *vfs, int size, char *message) {
    base_vfs(vfs)->xDlError(base_vfs(vfs), size, message);
}

static void (*fault_dl_sym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    return base_vfs(vfs)->xDlSym(base_vfs(vfs), library, symbol);
}

static void fault_dl_close(sqlite3_vfs *vfs, void *library) { base_vfs(vfs)->xDlClose(base_vfs(vfs), library); }

static int fault_randomness(sqlite3_vfs *vfs, int size, char *out) {
    return base_vfs(vfs)->xRandomness(base_vfs(vfs), size, out);
}

static int fault_sleep(sqlite3_vfs *vfs, int microseconds) { return base_vfs(vfs)->xSleep(base_vfs(vfs), microseconds); }

static int fault_current_time(sqlite3_vfs *vfs, double *now) { return base_vfs(vfs)->xCurrentTime(base_vfs(vfs), now); }

static int fault_get_last_error(sqlite3_vfs *vfs, int size, char *message) {
    return base_vfs(vfs)->xGetLastError ? base_vfs(vfs)->xGetLastError(base_vfs(vfs), size, message) : 0;
}

static int fault_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    return base_vfs(vfs)->xCurrentTimeInt64(base_vfs(vfs), now);
}

juice_fault_vfs *juice_fault_vfs_register(const char *name) {
    sqlite3_vfs *base = sqlite3_vfs_find(NULL);
    // Version 2 has xCurrentTimeInt64, which SQLite prefers; the system-call hooks
    // of version 3 are only for SQLite's own tests and are not passed on.
    if (base == NULL || base->iVersion < 2 || name == NULL) return NULL;
    juice_fault_vfs *fault = calloc(1, sizeof *fault);
    if (fault == NULL) return NULL;
    size_t length = strlen(name) + 1;
    fault->name = malloc(length);
    if (fault->name == NULL) {
        free(fault);
        return NULL;
    }
    memcpy(fault->name, name, length);
    fault->base = base;
    fault->vfs.iVersion = 2;
    fault->vfs.szOsFile = (int)sizeof(fault_file) + base->szOsFile;
    fault->vfs.mxPathname = base->mxPathname;
    fault->vfs.zName = fault->name;
    fault->vfs.pAppData = fault;
    fault->vfs.xOpen = fault_open;
    fault->vfs.xDelete = fault_delete;
    fault->vfs.xAccess = fault_access;
    fault->vfs.xFullPathname = fault_full_pathname;
    fault->vfs.xDlOpen = fault_dl_open;
    fault->vfs.xDlError = fault_dl_error;
    fault->vfs.xDlSym = fault_dl_sym;
    fault->vfs.xDlClose = fault_dl_close;
    fault->vfs.xRandomness = fault_randomness;
    fault->vfs.xSleep = fault_sleep;
    fault->vfs.xCurrentTime = fault_current_time;
    fault->vfs.xGetLastError = fault_get_last_error;
    fault->vfs.xCurrentTimeInt64 = fault_current_time_int64;
    if (sqlite3_vfs_register(&fault->vfs, 0) != SQLITE_OK) {
        free(fault->name);
        free(fault);
        return NULL;
    }
    return fault;
}

void juice_fault_vfs_unregister(juice_fault_vfs *vfs) {
    if (vfs == NULL) return;
    sqlite3_vfs_unregister(&vfs->vfs);
    free(vfs->name);
    free(vfs);
}

void juice_fault_vfs_arm(juice_fault_vfs *vfs, juice_fault_kind kind, long long n, int persistent, int torn) {
    // Disarmed first, so a call made meanwhile (another thread) cannot fail on a half-set arm.
    atomic_store(&vfs->armedCall, 0);
    atomic_store(&vfs->fired, 0);
    for (int index = 0; index < KINDS; index++) atomic_store(&vfs->calls[index], 0);
    atomic_store(&vfs->failures, 0);
    atomic_store(&vfs->armedKind, (int)kind);
    atomic_store(&vfs->persistent, persistent != 0);
    atomic_store(&vfs->torn, torn != 0);
    atomic_store(&vfs->armedCall, n);
}

long long juice_fault_vfs_count(const juice_fault_vfs *vfs, juice_fault_kind kind) {
    if ((int)kind < 0 || (int)kind >= KINDS) return 0;
    return atomic_load(&vfs->calls[kind]);
}

long long juice_fault_vfs_failures(const juice_fault_vfs *vfs) { return atomic_load(&vfs->failures); }
