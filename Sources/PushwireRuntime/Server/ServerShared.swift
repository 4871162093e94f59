import PushwireWire
import Synchronization

/// What every loop of one server shares: configuration, the frozen method table, the
/// pre-encoded preface and Settings, and the few counters that span loops (atomics).
final class ServerShared: Sendable {
    let configuration: ServerConfiguration
    let table: MethodTable
    let logger: Logger
    /// One debug line per call; nil unless the logger lets debug through (see `CallLog`).
    let callLog: CallLog?
    /// `PWIRE/1\n` followed by the Settings frame, encoded once and copied to each new connection.
    let greeting: [UInt8]
    let connectionCount = Atomic<Int>(0)
    /// Which loop each connection accepted by the binary door lives on.
    let balancer = ConnectionBalancer<LoopServer>()
    let draining = Atomic<Bool>(false)
    /// The most response bytes any connection held when its input was paused: what backpressure
    /// bounds, kept for tests and diagnostics.
    let peakPausedOutputBytes = Atomic<Int>(0)
    /// How many times a connection's input was paused for a slow reader.
    let backpressurePauses = Atomic<Int>(0)
    /// The most bytes one connection held at once (unsent responses, requests whose work has
    /// not ended, answer reservations): what its byte budget bounds, for tests and diagnostics.
    let peakHeldBytes = Atomic<Int>(0)
    /// Bytes held for all connections (each connection's published footprint: input buffer,
    /// output buffer, held bytes), compared with `maxBufferedBytes`.
    let bufferedBytes = Atomic<Int>(0)
    /// The most `bufferedBytes` reached, for tests and diagnostics.
    let peakBufferedBytes = Atomic<Int>(0)
    /// Bytes through the binary door: slot 0 read from clients, slot 1 written to them (/metrics);
    /// nil when the server does not record call metrics (`recordsCallMetrics`).
    let rpcBytes: ShardedCounters?
    /// Blocking calls dropped before they started because they were cancelled or expired.
    let blockingCallsSkipped = Atomic<Int>(0)
    /// The threads of blocking calls.
    let blockingPool: BlockingPool
    /// The threads that decode and check large requests.
    let largeRequestPool: BlockingPool
    /// Open connections per peer host (`maxConnectionsPerPeer`).
    let peers = PeerConnections()
    /// Accept failures for lack of descriptors or memory (either door): logged at most once per interval.
    let acceptFailures = RateLimitedWarning(intervalNanos: 10_000_000_000)
    /// The descriptor numbers connections may hold (both doors): under the limit by a reserve.
    let descriptors: DescriptorCeiling

    // Limits in the units the hot path compares against.
    let prefaceTimeoutNanos: UInt64
    let idleTimeoutNanos: UInt64
    let incompleteFrameTimeoutNanos: UInt64
    let defaultCallTimeoutNanos: UInt64

    init(configuration: ServerConfiguration, table: MethodTable, logger: Logger, describeCall: CallLog.Describe? = nil) {
        self.configuration = configuration
        self.table = table
        self.logger = logger
        descriptors = DescriptorCeiling(limit: (try? Syscall.descriptorLimit()) ?? nil, reserve: configuration.descriptorReserve)
        self.callLog = logger.level <= .debug ? CallLog(logger: logger, describe: describeCall) : nil
        blockingPool = BlockingPool(threads: configuration.blockingThreads)
        rpcBytes = configuration.recordsCallMetrics ? ShardedCounters(count: 2) : nil
        largeRequestPool = BlockingPool(threads: configuration.largeRequestThreads, name: "pw-large")
        var settings = Settings()
        settings.maxFrameSize = UInt32(clamping: configuration.maxFrameSize)
        settings.maxConcurrentCalls = UInt32(clamping: configuration.maxConcurrentCallsPerConnection)
        settings.serverName = configuration.serverName
        settings.serverVersion = configuration.serverVersion
        settings.protocolVersion = WireProtocol.version
        settings.idleTimeoutMS = configuration.idleTimeout.milliseconds32
        var greeting = WireProtocol.preface
        Frame.settings(settings).encode(appendingTo: &greeting, lengthPrefixed: true)
        self.greeting = greeting
        prefaceTimeoutNanos = configuration.prefaceTimeout.nanoseconds
        idleTimeoutNanos = configuration.idleTimeout.nanoseconds
        incompleteFrameTimeoutNanos = configuration.incompleteFrameTimeout.nanoseconds
        defaultCallTimeoutNanos = configuration.defaultCallTimeout?.nanoseconds ?? 0
    }

    var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Whether a connection accepted as `fd` (by either door) may stay open; when not, counts
    /// and (at most once per interval) logs the refusal. The caller closes the descriptor.
    func admitsDescriptor(_ fd: Int32, peer: SocketAddress, door: String) -> Bool {
        if descriptors.admits(fd) { return true }
        if let count = descriptors.refused(now: monotonicNanos()) {
            logger.warning("connection refused: too close to the descriptor limit", [
                "door": door, "peer": peer.description, "descriptor_limit": "\(descriptors.limit ?? 0)",
                "reserve": "\(descriptors.reserve)", "refused_since_last_warning": "\(count)",
            ])
        }
        return false
    }

    /// Whether the connections together hold more than `maxBufferedBytes`.
    var isOverBufferedBytes: Bool { bufferedBytes.load(ordering: .relaxed) > configuration.maxBufferedBytes }
}
