#include "juice_nats.h"

#include <dynamic_library.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// The table and the outcome of loading it are the process's, as the library itself
// is once loaded: written once under `once`, read only after it.
static struct juice_nats_functions table;
static uint32_t version;
static const char *failure = "libnats was not loaded";
static bool found = false;
/// `dlerror`'s text is the calling thread's and is freed by its next `dl*` call, so the
/// reason is kept here, for every later caller.
static char reason[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

// Debian's soname names the minor version (libnats.so.3.4), as nats.c's own build
// does; the unversioned name is libnats-dev's link, or a library built by hand.
static const char *const names[] = {
#if defined(__APPLE__)
    "libnats.3.dylib",
    "libnats.dylib",
    "/opt/homebrew/lib/libnats.dylib",
    "/usr/local/lib/libnats.dylib",
#else
    "libnats.so.3.4", "libnats.so.3.5", "libnats.so.3.6", "libnats.so.3.7", "libnats.so.3.8", "libnats.so.3.9",
    "libnats.so.3.10", "libnats.so.3.11", "libnats.so.3.12", "libnats.so.3", "libnats.so",
#endif
};

static void load(void) {
    void *library = juice_library_open(names, JUICE_LIBRARY_COUNT(names));
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(reason, sizeof reason, "%s", error != NULL ? error : "cannot load libnats");
        failure = reason;
        return;
    }
    found = true;
#define JUICE_NATS_LOAD(result, name, parameters) \
    if ((table.name = (__typeof__(table.name))dlsym(library, #name)) == NULL) { \
        failure = "libnats has no " #name; \
        return; \
    }
    JUICE_NATS_FUNCTIONS(JUICE_NATS_LOAD)
#undef JUICE_NATS_LOAD
    // The structs are declared as the versions in this range lay them out; a library
    // outside it is never called beyond asking its version.
    version = table.nats_GetVersionNumber();
    if (version < JUICE_NATS_OLDEST_VERSION || version >= JUICE_NATS_BEYOND_VERSION) {
        snprintf(
            reason, sizeof reason, "libnats %u.%u.%u is not a version juice knows (3.%u to 3.%u)",
            (unsigned)(version >> 16), (unsigned)((version >> 8) & 0xFF), (unsigned)(version & 0xFF),
            (unsigned)((JUICE_NATS_OLDEST_VERSION >> 8) & 0xFF), (unsigned)(((JUICE_NATS_BEYOND_VERSION >> 8) & 0xFF) - 1));
        failure = reason;
        return;
    }
    failure = NULL;
}

const char *juice_nats_load(void) {
    pthread_once(&once, load);
    return failure;
}

bool juice_nats_found(void) {
    pthread_once(&once, load);
    return found;
}

const char *const *juice_nats_library_names(size_t *count) {
    *count = JUICE_LIBRARY_COUNT(names);
    return names;
}

// The header's layout is libnats 3.4.1's: the offsets its own header gives (printed by
// a program built against it, and compared with these for every field juice uses).
_Static_assert(offsetof(jsStreamConfig, DiscardNewPerSubject) == 162, "jsStreamConfig as libnats 3.4.1 lays it out");
_Static_assert(offsetof(jsConsumerConfig, MemoryStorage) == 216, "jsConsumerConfig as libnats 3.4.1 lays it out");
_Static_assert(offsetof(jsSubOptions, Config) == 32, "jsSubOptions as libnats 3.4.1 lays it out");
_Static_assert(offsetof(jsSubOptions, juice_reserved) == 256, "jsSubOptions.Ordered's place in libnats 3.4.1");
_Static_assert(offsetof(jsPubOptions, ExpectNoMessage) == 48, "jsPubOptions as libnats 3.4.1 lays it out");
_Static_assert(offsetof(jsOptions, Stream.Info.SubjectsFilter) == 104, "jsOptions as libnats 3.4.1 lays it out");
_Static_assert(offsetof(jsStreamInfo, State) == 16, "jsStreamInfo as libnats 3.4.1 lays it out");
_Static_assert(offsetof(jsConsumerInfo, NumPending) == 104, "jsConsumerInfo as libnats 3.4.1 lays it out");
_Static_assert(offsetof(jsMsgMetaData, Timestamp) == 32, "jsMsgMetaData as libnats 3.4.1 lays it out");
_Static_assert(offsetof(jsPubAck, Duplicate) == 24, "jsPubAck as libnats 3.4.1 lays it out");
_Static_assert(offsetof(jsPubAckErr, ErrText) == 16, "jsPubAckErr as libnats 3.4.1 lays it out");

void juice_nats_set_ordered(jsSubOptions *options) {
    // Right after the consumer's settings: 224 bytes of them up to 3.6; 3.7 added the
    // filter subjects and metadata (256), 3.8 PauseUntil (264), 3.11 the priority
    // groups (296).
    size_t offset = version >= 0x030B00u ? 328 : version >= 0x030800u ? 296 : version >= 0x030700u ? 288 : 256;
    ((unsigned char *)options)[offset] = 1;
}

const struct juice_nats_functions *juice_nats(void) {
    return &table;
}
