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
    /// Which loop each accepted connection lives on.
    let balancer = ConnectionBalancer()
    let draining = Atomic<Bool>(false)
    /// The most response bytes any connection held when its input was paused: what backpressure
    /// bounds, kept for tests and diagnostics.
    let peakPausedOutputBytes = Atomic<Int>(0)
    /// How many times a connection's input was paused for a slow reader.
    let backpressurePauses = Atomic<Int>(0)

    // Limits in the units the hot path compares against.
    let prefaceTimeoutNanos: UInt64
    let idleTimeoutNanos: UInt64
    let incompleteFrameTimeoutNanos: UInt64
    let defaultCallTimeoutNanos: UInt64

    init(configuration: ServerConfiguration, table: MethodTable, logger: Logger, describeCall: CallLog.Describe? = nil) {
        self.configuration = configuration
        self.table = table
        self.logger = logger
        self.callLog = logger.level <= .debug ? CallLog(logger: logger, describe: describeCall) : nil
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
}
