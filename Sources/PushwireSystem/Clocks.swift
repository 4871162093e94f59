#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock, in nanoseconds: deadlines, timeouts and the load generator's latencies are
/// all measured on it. `@inlinable` because the load generator reads it several times per call.
@inlinable @inline(__always)
public func monotonicNanos() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}

/// CPU seconds (user + system) the calling thread has used so far (CLOCK_THREAD_CPUTIME_ID).
public func threadCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
