#if !PUSHWIRE_SYSTEM_MALLOC
import CJemalloc
#endif
import Glibc
import PushwireRuntime

/// pushwired's memory allocator: jemalloc, linked into the executable, so that it serves every
/// malloc of the process (the Swift runtime's, SQLite's, libcurl's) in place of glibc's.
///
/// Built with `PUSHWIRE_SYSTEM_MALLOC` in the environment (what `Scripts/test-asan` does),
/// pushwired links no jemalloc and keeps the C library's malloc (AddressSanitizer's, under it).
///
/// Why, and what it measured: docs/RUNTIME.md, "Memory allocator".
enum Allocator {
    /// How long freed pages stay mapped before jemalloc returns them to the kernel (its default
    /// is 10 s): with 3.7 MB requests and 1 MiB answers freed many times a second, ten seconds
    /// of them kept pushwired's peak RSS hundreds of MiB above what it used (docs/RUNTIME.md).
    static let dirtyDecayMilliseconds = 1000

    #if PUSHWIRE_SYSTEM_MALLOC
    /// The C library's malloc: this build links no jemalloc.
    static var description: String { "system malloc (built with PUSHWIRE_SYSTEM_MALLOC, without jemalloc)" }

    /// Nothing to tune without jemalloc; returns nil.
    @discardableResult
    static func configure() -> String? { nil }
    #else
    /// "jemalloc 5.3.0-…" when jemalloc serves malloc; otherwise what is known (a build or a
    /// loader that put glibc's malloc first would still link jemalloc without using it).
    static var description: String {
        var version: UnsafePointer<CChar>?
        var size = MemoryLayout<UnsafePointer<CChar>?>.size
        guard mallctl("version", &version, &size, nil, 0) == 0, let version else { return "unknown" }
        let name = "jemalloc " + String(cString: version)
        return servesMalloc ? name : "glibc malloc (\(name) linked but not in use)"
    }

    /// Whether `malloc`, as the dynamic linker binds it for the whole process, is jemalloc's:
    /// the first definition in the global scope (what every library's calls go to) is the one
    /// in the jemalloc library already loaded.
    static var servesMalloc: Bool {
        guard let library = dlopen("libjemalloc.so.2", RTLD_NOW | RTLD_NOLOAD) else { return false }
        defer { dlclose(library) }
        let global = dlsym(UnsafeMutableRawPointer(bitPattern: 0) /* RTLD_DEFAULT */, "malloc")
        return global != nil && global == dlsym(library, "malloc")
    }

    /// Gives freed memory back sooner: `dirtyDecayMilliseconds` for every arena (those there and
    /// those made later), purged by jemalloc's background thread rather than by whichever thread
    /// next allocates. Call once at start, before the server's threads. Returns what could not be
    /// set (a jemalloc built without background threads), nil when all was. With `MALLOC_CONF` in
    /// the environment the operator has tuned jemalloc: nothing is changed.
    @discardableResult
    static func configure() -> String? {
        if getenv("MALLOC_CONF") != nil { return nil }
        var failed: [String] = []
        var decay = dirtyDecayMilliseconds  // ssize_t
        // The default of the arenas made from now on (each thread's, on its first malloc)…
        if mallctl("arenas.dirty_decay_ms", nil, nil, &decay, MemoryLayout<Int>.size) != 0 { failed.append("arenas.dirty_decay_ms") }
        // …and each arena made so far; the slots not yet in use refuse, and take the default later.
        var arenas: UInt32 = 0
        var size = MemoryLayout<UInt32>.size
        if mallctl("arenas.narenas", &arenas, &size, nil, 0) == 0 {
            for index in 0..<arenas {
                _ = mallctl("arena.\(index).dirty_decay_ms", nil, nil, &decay, MemoryLayout<Int>.size)
            }
        }
        var enable = true
        if mallctl("background_thread", nil, nil, &enable, MemoryLayout<Bool>.size) != 0 { failed.append("background_thread") }
        return failed.isEmpty ? nil : failed.joined(separator: ", ")
    }

    /// jemalloc's own figures for /metrics (`pushwire_allocator_bytes{kind}`): `allocated` (in
    /// use by the program), `active` (its pages), `resident` (physically mapped, what RSS sees
    /// of the heap), `retained` (address space kept but returned to the kernel). `resident` far
    /// above `allocated` means freed pages not yet purged; both high, live data.
    static func collectMetrics(_ out: inout PrometheusText) {
        var epoch: UInt64 = 1
        // Refreshes the statistics, which jemalloc otherwise reports as of the last refresh.
        _ = mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size)
        out.family("pushwire_allocator_bytes", "gauge", help: "jemalloc's statistics: allocated, active, resident, retained bytes.")
        for kind in ["allocated", "active", "resident", "retained"] {
            var value = 0  // size_t
            var size = MemoryLayout<Int>.size
            if mallctl("stats.\(kind)", &value, &size, nil, 0) == 0 {
                out.sample("pushwire_allocator_bytes", [("kind", kind)], Double(value))
            }
        }
    }
    #endif
}
