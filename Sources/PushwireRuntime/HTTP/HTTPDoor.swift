#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import PushwireWire
import PushwireOpenSSL

/// What every loop's HTTP side shares: the configuration, the method table (the binary door's),
/// the router and the metrics.
final class HTTPDoor: Sendable {
    let configuration: HTTPConfiguration
    let table: MethodTable
    let logger: Logger
    let metrics: MetricsRegistry
    let router: HTTPRouter
    let requestTimeoutNanos: UInt64
    let idleTimeoutNanos: UInt64
    /// The binary door's shared state, for the descriptor ceiling both doors' connections count
    /// against (`ServerShared.admitsDescriptor`).
    let shared: ServerShared

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
/// `@unchecked Sendable`: created before the loop's thread runs, then touched only on it.
final class HTTPLoopServer: @unchecked Sendable {
    let loop: EventLoop
    let door: HTTPDoor
    let scratch: UnsafeMutableRawBufferPointer
    private var listeners: [HTTPListener] = []
    private var connections: [ObjectIdentifier: HTTPConnection] = [:]
    private(set) var draining = false

    init(loop: EventLoop, door: HTTPDoor) {
        self.loop = loop
        self.door = door
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        loop.onTick { [unowned self] in self.tick() }
    }

    deinit {
        scratch.deallocate()
    }

    /// Listens on one more socket; its connections speak TLS on `tls` when given. Before the
    /// loop's thread starts.
    func addListener(_ fd: consuming FileDescriptor, tls: TLSServerContext?) throws(SystemError) {
        let listener = HTTPListener(fd: fd, owner: self, tls: tls)
        try loop.register(fd: listener.rawFD, events: CPWEvents.input, handler: listener)
        listeners.append(listener)
    }

    /// Takes a connection its listener accepted (and counted in `openConnections`).
    func adopt(_ socket: consuming FileDescriptor, peer: SocketAddress, tls: TLSServerContext?) {
        try? Syscall.setOption(socket.raw, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        let now = monotonicNanos()
        let stream: ByteStream
        if let tls {
            guard let made = ByteStream(tls: tls, application: .http1, fd: socket, now: now) else {
                door.logger.error("could not start a TLS session", ["peer": peer.description, "error": openSSLErrors()])
                door.metrics.http.openConnections.subtract(1, ordering: .relaxed)
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
            door.metrics.http.openConnections.subtract(1, ordering: .relaxed)
            return
        }
        connections[ObjectIdentifier(connection)] = connection
    }

    func connectionClosed(_ connection: HTTPConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            door.metrics.http.openConnections.subtract(1, ordering: .relaxed)
        }
    }

    private func tick() {
        for listener in listeners where listener.needsRetry { listener.acceptAll() }
        let now = monotonicNanos()
        for connection in Array(connections.values) { connection.checkTimeouts(now: now) }
    }

    /// Stops accepting; idle connections close now, the others after the answers they are owed.
    func beginDrain() {
        draining = true
        closeListeners()
        for connection in Array(connections.values) { connection.beginDrain() }
    }

    /// Closes everything at once.
    func closeAll() {
        closeListeners()
        for connection in Array(connections.values) { connection.close(reason: "server stopped") }
    }

    private func closeListeners() {
        for listener in listeners { listener.close() }
        listeners = []
    }
}
