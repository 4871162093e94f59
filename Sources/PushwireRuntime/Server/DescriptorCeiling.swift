import Synchronization

/// Keeps the descriptors of accepted connections a margin under the process's limit on open
/// files, so that the rest of the process always finds one when it needs it.
///
/// Why: libdispatch (under Swift concurrency's tasks) checks its worker threads once a second
/// by opening `/proc/self/task/<tid>/stat` and traps (SIGILL) when that open fails, so a server
/// whose connections took every descriptor could die; the store's files, the gateways' sockets,
/// the sink's reopen and the listeners' retries need descriptors at any time too.
///
/// How: a new descriptor is always the lowest free number, so an accepted connection numbered at
/// or above `ceiling` means every number below it is taken. Such a connection is closed at once
/// (like one over `maxConnections`); connections therefore only ever hold numbers under the
/// ceiling, and the `reserve` numbers above it stay for everything else, whatever order
/// descriptors were opened and closed in.
final class DescriptorCeiling: Sendable {
    /// The soft `RLIMIT_NOFILE` read at start; nil when unlimited (no ceiling then).
    let limit: Int?
    /// Descriptors kept for what is not a connection.
    let reserve: Int
    /// Accepted connections with a descriptor number at or above this are refused.
    let ceiling: Int
    /// Connections refused at the ceiling since start (`pushwire_connections_refused_total`).
    let refusals = Atomic<Int>(0)
    /// Refusals are logged at most once per interval, with the count held back.
    let warning = RateLimitedWarning(intervalNanos: 10_000_000_000)

    /// - Parameters:
    ///   - limit: the process's descriptor limit (`Syscall.descriptorLimit()`); nil: unlimited.
    ///   - reserve: kept free of connections; nil picks `defaultReserve(limit:)`.
    init(limit: Int?, reserve: Int?) {
        self.limit = limit
        guard let limit else {
            self.reserve = 0
            ceiling = Int(Int32.max)
            return
        }
        let reserve = reserve ?? Self.defaultReserve(limit: limit)
        self.reserve = reserve
        ceiling = max(0, limit - reserve)
    }

    /// An eighth of the limit, at least 16 and at most 256: 16 of `ulimit -n 64`, 128 of the
    /// common 1024, 256 from 2048 up. What takes descriptors after start is small and bounded —
    /// libdispatch's one /proc read at a time, SQLite's temporary files, the sink's reopen, the
    /// APNs and FCM gateways' connections (a few each), a PostgreSQL reconnection, the listeners'
    /// accept of a connection that is then refused — so a fixed margin with a floor suffices.
    static func defaultReserve(limit: Int) -> Int {
        min(256, max(16, limit / 8))
    }

    /// Whether a connection accepted as descriptor `fd` may stay open.
    @inline(__always)
    func admits(_ fd: Int32) -> Bool {
        Int(fd) < ceiling
    }

    /// Counts one refused connection; returns how many refusals the log line about to be written
    /// stands for (itself plus those held back since the last), or nil when this one is not logged.
    func refused(now: UInt64) -> Int? {
        refusals.add(1, ordering: .relaxed)
        return warning.occurred(now: now).map { $0 + 1 }
    }
}
