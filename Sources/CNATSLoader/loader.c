#include "juice_nats.h"

#include <dynamic_library.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

// The table and the outcome of loading it are the process's, as the library itself
// is once loaded: written once under `once`, read only after it.
static struct juice_nats_functions table;
static const char *failure = "libnats was not loaded";
/// `dlerror`'s text is the calling thread's and is freed by its next `dl*` call, so the
/// reason is kept here, for every later caller.
static char reason[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *const names[] = {
#if defined(__APPLE__)
        "libnats." JUICE_LIBRARY_TEXT(NATS_VERSION_MAJOR) "." JUICE_LIBRARY_TEXT(NATS_VERSION_MINOR) ".dylib",
        "libnats." JUICE_LIBRARY_TEXT(NATS_VERSION_MAJOR) ".dylib",
        "/opt/homebrew/lib/libnats.dylib",
        "/usr/local/lib/libnats.dylib",
#else
        // Debian's soname names the minor version (libnats.so.3.4).
        "libnats.so." JUICE_LIBRARY_TEXT(NATS_VERSION_MAJOR) "." JUICE_LIBRARY_TEXT(NATS_VERSION_MINOR),
        "libnats.so." JUICE_LIBRARY_TEXT(NATS_VERSION_MAJOR),
#endif
    };
    void *library = juice_library_open(names, JUICE_LIBRARY_COUNT(names));
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(reason, sizeof reason, "%s", error != NULL ? error : "cannot load libnats");
        failure = reason;
        return;
    }
#define JUICE_NATS_LOAD(name) \
    if ((table.name = (__typeof__(table.name))dlsym(library, #name)) == NULL) { \
        failure = "libnats has no " #name; \
        return; \
    }
    JUICE_NATS_FUNCTIONS(JUICE_NATS_LOAD)
#undef JUICE_NATS_LOAD
    failure = NULL;
}

const char *juice_nats_load(void) {
    pthread_once(&once, load);
    return failure;
}

const struct juice_nats_functions *juice_nats(void) {
    return &table;
}
