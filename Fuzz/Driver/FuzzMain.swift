import FuzzSupport

// The entry point of every fuzz target, one file for all of them: each Fuzz/Targets/<name>/ holds a
// symlink to it (a SwiftPM target cannot name a source outside its directory). It runs libFuzzer's
// driver (LLVMFuzzerRunDriver: options, corpus directories, inputs to replay) on the target's
// `fuzzOneInput`, which is exported to libFuzzer as `LLVMFuzzerTestOneInput`.

/// Runs libFuzzer's driver on this target's `fuzzOneInput`.
@main
enum FuzzMain {
    static func main() { runFuzzer(fuzzOneInput) }
}
