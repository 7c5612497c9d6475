#ifndef C_FUZZER_DRIVER_H
#define C_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt's FuzzerInterface.h), linked in by -sanitize=fuzzer.
/// Only the fuzz build (-DFUZZING) calls it, so a plain build never needs the symbol.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

#endif
