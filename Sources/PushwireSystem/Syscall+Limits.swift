#if canImport(Glibc)
import Glibc
#endif

extension Syscall {
    /// The process's soft limit on open file descriptors (`RLIMIT_NOFILE`, what `ulimit -n` sets):
    /// a descriptor number at or above it is never handed out. nil when the limit is infinite.
    public static func descriptorLimit() throws(SystemError) -> Int? {
        var limits = rlimit()
        _ = try retrying("getrlimit") { getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits) }
        // RLIM_INFINITY is all ones (its macro does not import).
        if limits.rlim_cur == rlim_t.max { return nil }
        return Int(clamping: limits.rlim_cur)
    }
}
