#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import PushwireWire
import PushwireOpenSSL
import Synchronization

/// What every loop's HTTP side shares: the configuration, the method table (the binary door's),
/// the router, the metrics and the balancer.
final class HTTPDoor: Sendable {
    let configuration: HTTPConfiguration
    let table: MethodTable
    let logger: Logger
    let metrics: MetricsRegistry
    let router: HTTPRouter
    let requestTimeoutNanos: UInt64
    let idleTimeoutNanos: UInt64
    /// The binary door's shared state, for the descriptor ceiling both doors' connections count
    /// against (`ServerShared.admitsDescriptor`) and the accept-failure warning they share.
    let shared: ServerShared
    /// Which loop each accepted HTTP connection lives on.
    let balancer = ConnectionBalancer<HTTPLoopServer>()

    init(configuration: HTTPConfiguration, table: MethodTable, logger: Logger, metrics: MetricsRegistry, router: HTTPRouter,
         shared: ServerShared) {
        self.shared = shared
        self.configuration = configuration
        self.table = table
        self.logger = logger
        self.metrics = metrics
        self.router = router
        requestTimeoutNanos = configuration.requestTimeout.nanoseconds
        idleTimeoutNanos = configuration.idleTimeout.nanoseconds
    }
}

/// The HTTP side of one event loop: its listening sockets (SO_REUSEPORT on the HTTP port, TLS
/// when the server has a certificate, and the optional clear-text one) and its HTTP connections,
/// with their timeouts checked on the loop's tick.
///
/// `@unchecked Sendable`: created before the loop's thread runs, then touched only on it, but for
/// `openConnections` and `stopping` (atomics), which other loops' balancer reads.
final class HTTPLoopServer: ListeningDoor, @unchecked Sendable {
    let loop: EventLoop
    let door: HTTPDoor
    let scratch: UnsafeMutableRawBufferPointer
    private var listeners: [Listener<HTTPLoopServer>] = []
    private var connections: [ObjectIdentifier: HTTPConnection] = [:]
    private let stopping = Atomic<Bool>(false)
    /// HTTP connections living on this loop, counting those handed to it and not yet adopted.
    private let openConnections = Atomic<Int>(0)

    init(loop: EventLoop, door: HTTPDoor) {
        self.loop = loop
        self.door = door
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        loop.onTick { [unowned self] in self.tick() }
    }

    deinit {
        scratch.deallocate()
    }

    var shared: ServerShared { door.shared }
    var balancer: ConnectionBalancer<HTTPLoopServer> { door.balancer }
    static var doorName: String { "http" }
    var isStopping: Bool { stopping.load(ordering: .relaxed) }
    var openConnectionCount: Int { openConnections.load(ordering: .relaxed) }
    func reserveConnectionSlot() { openConnections.add(1, ordering: .relaxed) }

    /// Listens on one more socket; its connections speak TLS on `tls` when given. Before the
    /// loop's thread starts.
    func addListener(_ fd: consuming FileDescriptor, tls: TLSServerContext?) throws(SystemError) {
        let listener = Listener<HTTPLoopServer>(fd: fd, owner: self, tls: tls)
        try loop.register(fd: listener.rawFD, events: CPWEvents.input, handler: listener)
        listeners.append(listener)
    }

    /// Counts a connection just accepted in `openConnections` (all loops'), against the door's
    /// `maxConnections`; false (nothing counted) when over it or draining.
    func admit(peer: SocketAddress) -> Bool {
        let open = door.metrics.http.openConnections.add(1, ordering: .relaxed).newValue
        if open > door.configuration.maxConnections || isStopping {
            door.metrics.http.openConnections.subtract(1, ordering: .relaxed)
            door.logger.debug("HTTP connection refused: limit reached", [
                "peer": peer.description, "max_connections": "\(door.configuration.maxConnections)",
            ])
            return false
        }
        door.metrics.http.connectionAccepted()
        return true
    }

    /// Takes a connection a listener admitted (counted in the door's `openConnections` and in
    /// this loop's by the balancer).
    func adopt(_ socket: consuming FileDescriptor, peer: SocketAddress, tls: TLSServerContext?) {
        if isStopping {
            // Handed over while this loop began to drain: refused like any connection after shutdown.
            socket.close()
            release()
            return
        }
        try? Syscall.setOption(socket.raw, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        let now = monotonicNanos()
        let stream: ByteStream
        if let tls {
            guard let made = ByteStream(tls: tls, application: .http1, fd: socket, now: now) else {
                door.logger.error("could not start a TLS session", ["peer": peer.description, "error": openSSLErrors()])
                release()
                return
            }
            stream = made
        } else {
            stream = ByteStream(clearText: socket)
        }
        let connection = HTTPConnection(stream: stream, peer: peer, owner: self, now: now)
        do {
            try connection.register()
        } catch {
            door.logger.error("could not register an HTTP connection", ["error": "\(error)"])
            release()
            return
        }
        connections[ObjectIdentifier(connection)] = connection
    }

    /// Uncounts a connection that is gone, or never became one.
    private func release() {
        openConnections.subtract(1, ordering: .relaxed)
        door.metrics.http.openConnections.subtract(1, ordering: .relaxed)
    }

    func connectionClosed(_ connection: HTTPConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil { release() }
    }

    private func tick() {
        let now = monotonicNanos()
        for listener in listeners { listener.retryIfDue(now: now) }
        for connection in Array(connections.values) { connection.checkTimeouts(now: now) }
    }

    /// Stops accepting; idle connections close now, the others after the answers they are owed.
    func beginDrain() {
        stopping.store(true, ordering: .relaxed)
        closeListeners()
        for connection in Array(connections.values) { connection.beginDrain() }
    }

    /// Closes everything at once.
    func closeAll() {
        stopping.store(true, ordering: .relaxed)
        closeListeners()
        for connection in Array(connections.values) { connection.close(reason: "server stopped") }
    }

    private func closeListeners() {
        for listener in listeners { listener.close() }
        listeners = []
    }
}
