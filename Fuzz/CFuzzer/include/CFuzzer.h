// libFuzzer's driver, from the toolchain's libclang_rt.fuzzer (linked by -sanitize=fuzzer).
// The fuzz targets call it from their own entry point: SwiftPM renames an executable's `main`, so
// libFuzzer's `main` cannot be the one that runs.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
