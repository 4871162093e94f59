#if canImport(Glibc)
import Glibc
#endif
import PushwireWire

/// Everything the server needs to know to listen and to enforce its limits.
/// Each limit has a clear outcome for the peer, documented on its property.
public struct ServerConfiguration: Sendable {
    /// Where to listen: `127.0.0.1:7355`, `[::1]:7355`, `0.0.0.0:7355`; port 0 picks a free port.
    public var listen: SocketAddress
    /// Event-loop threads; each has its own epoll and its own listening socket (SO_REUSEPORT).
    public var threads: Int
    /// The largest frame payload accepted (announced in Settings). A longer frame gets
    /// GoAway(RESOURCE_EXHAUSTED) and the connection is closed, without buffering the payload.
    public var maxFrameSize: Int
    /// Calls in flight per connection (announced in Settings); the extra call gets RESOURCE_EXHAUSTED.
    public var maxConcurrentCallsPerConnection: Int
    /// Open connections across the server; extra connections are accepted and closed at once.
    public var maxConnections: Int
    /// Open connections from one peer address (IPv4: the address; IPv6: its /64 prefix, what one
    /// host is usually given); extra connections are accepted and closed at once, so that idle
    /// connections from one host cannot hold every `maxConnections` slot.
    public var maxConnectionsPerPeer: Int
    /// A connection must send its preface within this time, or it is closed.
    public var prefaceTimeout: Duration
    /// A connection with no complete frame and no call in flight for this long is closed
    /// (announced in Settings); `.zero` means never.
    public var idleTimeout: Duration
    /// A frame whose first byte has arrived must be complete within this time, so a peer that
    /// drips one byte every few seconds cannot hold a connection forever.
    public var incompleteFrameTimeout: Duration
    /// On shutdown, how long in-flight calls may take before their connections are closed.
    public var drainTimeout: Duration
    /// A connection's byte budget: responses waiting for a slow reader, plus the requests of its
    /// calls whose work has not ended (with their decoded form), plus room reserved for the
    /// answer of each call at work (64 KiB, or its method's largest answer so far). A call's work
    /// starts only when its room fits; above the budget the server stops reading the
    /// connection's requests (backpressure); reading resumes once it is back under half of it.
    public var maxOutputBufferBytes: Int
    /// Bytes the server holds for all its connections together (their budgets' contents plus
    /// their input buffers). Above it, a connection holding more than 64 KiB stops being read
    /// and starts no queued blocking call until the total is back under seven eighths of it, so
    /// that many connections each within their budget cannot exhaust memory together; small
    /// connections (ordinary calls) are never held back.
    public var maxBufferedBytes: Int
    /// The kernel's send buffer per connection (`SO_SNDBUF`; Linux doubles it for its own
    /// bookkeeping), or nil for the kernel's autotuning (up to `net.ipv4.tcp_wmem`'s maximum,
    /// 4 MB by default). Answers a peer does not read wait in the connection's output, where the
    /// byte budget counts them; what the kernel takes is not counted, so without a cap a peer that
    /// never reads makes the server encode and copy 4 MB more per connection before it is
    /// stopped. 256 KiB by default: small answers still leave at once, large ones at up to this
    /// much per round trip.
    public var socketSendBufferBytes: Int?
    /// Descriptors kept free of connections under the process's limit on open files
    /// (`RLIMIT_NOFILE`, read at start): a connection accepted as a descriptor numbered at or
    /// above limit − reserve is closed at once, so that the store's files, the gateways' sockets
    /// and libdispatch's reads of /proc (which trap the process when they fail) always find one.
    /// nil: an eighth of the limit, at least 16 and at most 256.
    public var descriptorReserve: Int? = nil
    /// Blocking calls (store reads, large requests' checks) one connection may have running or
    /// queued on the server's blocking threads; its further ones wait in the connection, where
    /// a Cancel or deadline drops them before they start.
    public var maxBlockingCallsPerConnection: Int
    /// Threads for blocking calls, shared by every connection in turn (round robin).
    public var blockingThreads: Int
    /// Threads that decode and check large requests (`largeRequestBytes`), shared the same way;
    /// apart from `blockingThreads` so that a store read never waits behind other clients'
    /// large requests (a 3.7 MB CreateMessage takes tens of milliseconds to check).
    public var largeRequestThreads: Int
    /// A request whose message is at least this long is decoded and checked on the blocking
    /// threads instead of the event loop, so that it does not stall the loop's other connections.
    public var largeRequestBytes: Int
    /// The deadline of a request that sends `timeout_ms = 0`; `nil` means none.
    public var defaultCallTimeout: Duration?
    /// The name announced in Settings.
    public var serverName: String
    /// The version announced in Settings.
    public var serverVersion: String
    /// The HTTP door (Connect JSON, `/healthz`, `/metrics`, added routes) on the same loops;
    /// nil: none.
    public var http: HTTPConfiguration? = nil
    /// TLS on `listen` (certificate, key, client CA, handshake timeout); nil: `listen` is clear text.
    public var tls: TLSServerContext? = nil
    /// A second RPC listener in clear text beside a TLS `listen` (for loopback or a private
    /// network); the same methods and limits. nil: none.
    public var plaintextListen: SocketAddress? = nil
    /// Services (e.g. `pushwire.v1.Admin`) whose calls are answered PERMISSION_DENIED unless the
    /// connection presented a TLS client certificate that verified against `tls`'s client CA;
    /// calls in clear text (the plaintext listener, the HTTP door) never have one.
    public var clientCertificateServices: Set<String> = []
    /// Whether calls are counted for `/metrics` (`pushwire_calls_total`, latencies) with the
    /// binary door's bytes (`pushwire_rpc_bytes_total`); off only to measure what counting costs
    /// (docs/BENCHMARKS.md).
    public var recordsCallMetrics = true

    /// The defaults: `127.0.0.1:7355`, one loop per core, 4 MiB frames, 1024 calls per connection,
    /// 100,000 connections and 1,000 per peer, 10 s preface, 5 min idle, 30 s per frame, 10 s
    /// drain, 4 MiB output buffer, 256 KiB kernel send buffer, 4 blocking calls per connection on max(4, 2 per core) threads,
    /// requests from 64 KiB checked off the loop (one thread per core), 512 MiB held across
    /// connections.
    public init(
        listen: SocketAddress = ServerConfiguration.defaultListenAddress,
        threads: Int = ServerConfiguration.defaultThreadCount,
        maxFrameSize: Int = WireProtocol.defaultMaxFrameSize,
        maxConcurrentCallsPerConnection: Int = WireProtocol.defaultMaxConcurrentCalls,
        maxConnections: Int = 100_000,
        maxConnectionsPerPeer: Int = 1000,
        prefaceTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(300),
        incompleteFrameTimeout: Duration = .seconds(30),
        drainTimeout: Duration = .seconds(10),
        maxOutputBufferBytes: Int = 4 * 1024 * 1024,
        maxBufferedBytes: Int = 512 * 1024 * 1024,
        socketSendBufferBytes: Int? = 256 * 1024,
        maxBlockingCallsPerConnection: Int = 4,
        blockingThreads: Int = max(4, 2 * ServerConfiguration.defaultThreadCount),
        largeRequestThreads: Int = ServerConfiguration.defaultThreadCount,
        largeRequestBytes: Int = 64 * 1024,
        defaultCallTimeout: Duration? = nil,
        serverName: String = "pushwired",
        serverVersion: String = PushwireVersion.current
    ) {
        self.listen = listen
        self.threads = threads
        self.maxFrameSize = maxFrameSize
        self.maxConcurrentCallsPerConnection = maxConcurrentCallsPerConnection
        self.maxConnections = maxConnections
        self.maxConnectionsPerPeer = maxConnectionsPerPeer
        self.prefaceTimeout = prefaceTimeout
        self.idleTimeout = idleTimeout
        self.incompleteFrameTimeout = incompleteFrameTimeout
        self.drainTimeout = drainTimeout
        self.maxOutputBufferBytes = maxOutputBufferBytes
        self.maxBufferedBytes = maxBufferedBytes
        self.socketSendBufferBytes = socketSendBufferBytes
        self.maxBlockingCallsPerConnection = maxBlockingCallsPerConnection
        self.blockingThreads = blockingThreads
        self.largeRequestThreads = largeRequestThreads
        self.largeRequestBytes = largeRequestBytes
        self.defaultCallTimeout = defaultCallTimeout
        self.serverName = serverName
        self.serverVersion = serverVersion
    }

    /// `127.0.0.1:7355`.
    public static let defaultListenAddress: SocketAddress = {
        // A literal that always parses; the fallback only satisfies the type checker.
        (try? SocketAddress(parsing: "127.0.0.1:7355")) ?? SocketAddress.loopbackFallback
    }()

    /// One per online core.
    public static var defaultThreadCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}

extension Duration {
    /// Whole nanoseconds, saturating; negative durations are 0.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (scaled, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return UInt64.max }
        return scaled &+ UInt64(attoseconds / 1_000_000_000)
    }

    /// Whole milliseconds, saturating at `UInt32.max`.
    var milliseconds32: UInt32 {
        UInt32(min(nanoseconds / 1_000_000, UInt64(UInt32.max)))
    }
}
