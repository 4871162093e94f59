import CJemalloc
import Glibc

/// pushwired's memory allocator: jemalloc, linked into the executable, so that it serves every
/// malloc of the process (the Swift runtime's, SQLite's, libcurl's) in place of glibc's.
///
/// Why, and what it measured: docs/RUNTIME.md, "Memory allocator".
enum Allocator {
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
}
