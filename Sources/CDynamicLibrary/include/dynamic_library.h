// What the loaders of the libraries `juice` opens only when needed share (CTLS,
// CReadline, CNATSLoader): opening the first of a library's names that loads. The
// target `CDynamicLibrary`: a loader includes `<dynamic_library.h>`, and a target whose
// code includes a loader depends on it (a system library target has no dependencies).
#ifndef JUICE_DYNAMIC_LIBRARY_H
#define JUICE_DYNAMIC_LIBRARY_H

#include <dlfcn.h>
#include <stddef.h>

/// A macro's value as a string literal (`JUICE_LIBRARY_TEXT(RL_VERSION_MAJOR)` is "8").
#define JUICE_LIBRARY_TEXT(x) JUICE_LIBRARY_TEXT_(x)
#define JUICE_LIBRARY_TEXT_(x) #x

/// The number of names in a `names` array.
#define JUICE_LIBRARY_COUNT(names) (sizeof(names) / sizeof((names)[0]))

/// Opens the first of `names` that loads (`RTLD_NOW | RTLD_LOCAL`; it stays loaded), or
/// returns NULL, and then `dlerror()` on this thread says why the last one did not.
static inline void *_Nullable juice_library_open(const char *const _Nonnull *_Nonnull names, size_t count) {
    void *library = NULL;
    for (size_t index = 0; index < count && library == NULL; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    }
    return library;
}

#endif
