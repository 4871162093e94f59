#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import PushwireWire

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

    init(configuration: HTTPConfiguration, table: MethodTable, logger: Logger, metrics: MetricsRegistry, router: HTTPRouter) {
        self.configuration = configuration
        self.table = table
        self.logger = logger
        self.metrics = metrics
        self.router = router
        requestTimeoutNanos = configuration.requestTimeout.nanoseconds
        idleTimeoutNanos = configuration.idleTimeout.nanoseconds
    }
}

/// The HTTP side of one event loop: its listening socket (SO_REUSEPORT on the HTTP port) and
/// its HTTP connections, with their timeouts checked on the loop's tick.
///
/// `@unchecked Sendable`: created before the loop's thread runs, then touched only on it.
final class HTTPLoopServer: EventHandler, @unchecked Sendable {
    let loop: EventLoop
    let door: HTTPDoor
    let scratch: UnsafeMutableRawBufferPointer
    private var listener: FileDescriptor
    private var connections: [ObjectIdentifier: HTTPConnection] = [:]
    private var needsRetry = false
    private var draining = false

    init(loop: EventLoop, door: HTTPDoor, listenerFD: consuming FileDescriptor) throws(SystemError) {
        self.loop = loop
        self.door = door
        listener = listenerFD
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        try loop.register(fd: listener.raw, events: CPWEvents.input, handler: self)
        loop.onTick { [unowned self] in self.tick() }
    }

    deinit {
        scratch.deallocate()
    }

    func handleEvents(_ events: UInt32) {
        acceptAll()
    }

    private func acceptAll() {
        needsRetry = false
        while listener.isOpen {
            let accepted: IOResult<(Int32, SocketAddress)>
            do {
                accepted = try Syscall.accept(listener.raw)
            } catch {
                switch error.errno {
                case ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    door.logger.warning("HTTP accept failed; retrying shortly", ["error": "\(error)"])
                    needsRetry = true
                    return
                default:
                    door.logger.error("HTTP accept failed", ["error": "\(error)"])
                    return
                }
            }
            guard case .processed(let (client, peer)) = accepted else { return }
            var socket = FileDescriptor(client)
            let open = door.metrics.http.openConnections.add(1, ordering: .relaxed).newValue
            if open > door.configuration.maxConnections || draining {
                door.metrics.http.openConnections.subtract(1, ordering: .relaxed)
                socket.close()
                continue
            }
            door.metrics.http.connectionAccepted()
            try? Syscall.setOption(socket.raw, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
            let connection = HTTPConnection(fd: socket, peer: peer, owner: self, now: monotonicNanos())
            do {
                try connection.register()
            } catch {
                door.logger.error("could not register an HTTP connection", ["error": "\(error)"])
                door.metrics.http.openConnections.subtract(1, ordering: .relaxed)
                continue
            }
            connections[ObjectIdentifier(connection)] = connection
        }
    }

    func connectionClosed(_ connection: HTTPConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            door.metrics.http.openConnections.subtract(1, ordering: .relaxed)
        }
    }

    private func tick() {
        if needsRetry { acceptAll() }
        let now = monotonicNanos()
        for connection in Array(connections.values) { connection.checkTimeouts(now: now) }
    }

    /// Stops accepting; idle connections close now, the others after the answers they are owed.
    func beginDrain() {
        draining = true
        closeListener()
        for connection in Array(connections.values) { connection.beginDrain() }
    }

    /// Closes everything at once.
    func closeAll() {
        closeListener()
        for connection in Array(connections.values) { connection.close(reason: "server stopped") }
    }

    private func closeListener() {
        guard listener.isOpen else { return }
        loop.deregister(fd: listener.raw)
        listener.close()
    }
}
