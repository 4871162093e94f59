// CFuzzer only declares libFuzzer's driver (include/CFuzzer.h); SwiftPM wants a source file.
#include "CFuzzer.h"
