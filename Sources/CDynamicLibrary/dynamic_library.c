// The target's one source file: what it offers is the header's (static inline, so each
// loader that includes it keeps its own copy and nothing is linked for it).
#include "dynamic_library.h"
