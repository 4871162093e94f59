#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import PushwireWire
import Synchronization
import PushwireOpenSSL

/// The server's state on one event loop: its listener, its connections, the connections waiting
/// for a flush at the end of the iteration, and the drain on shutdown.
///
/// `@unchecked Sendable`: created on the starting thread before the loop's thread runs, then
/// touched only on the loop's thread (other threads go through `loop.execute`).
final class LoopServer: ListeningDoor, @unchecked Sendable {
    let loop: EventLoop
    let shared: ServerShared
    /// Where reads that are not kept land (the preface, input discarded while closing).
    let scratch: UnsafeMutableRawBufferPointer
    /// The RPC listening sockets: `listen` (TLS when configured) and the optional clear-text one.
    private var listeners: [Listener<LoopServer>] = []
    private var connections: [ObjectIdentifier: Connection] = [:]
    private var pendingFlush: [Connection] = []
    private var drainDeadline: UInt64?
    private var stopped = false
    private let stopping = Atomic<Bool>(false)
    /// Connections living on this loop, counting those handed to it and not yet adopted; read by
    /// other loops' balancer to choose where a new connection goes.
    let openConnections = Atomic<Int>(0)

    /// Whether this loop has begun to drain or stop (it takes no more connections).
    var isStopping: Bool { stopping.load(ordering: .relaxed) }
    var openConnectionCount: Int { openConnections.load(ordering: .relaxed) }
    func reserveConnectionSlot() { openConnections.add(1, ordering: .relaxed) }
    var balancer: ConnectionBalancer<LoopServer> { shared.balancer }
    static var doorName: String { "rpc" }

    init(loop: EventLoop, shared: ServerShared, listenerFD: consuming FileDescriptor, tls: TLSServerContext? = nil) throws(SystemError) {
        self.loop = loop
        self.shared = shared
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        try addListener(listenerFD, tls: tls)
        loop.onTick { [unowned self] in self.tick() }
    }

    /// Listens on one more socket; connections it accepts speak TLS on `tls` when given. Before
    /// the loop's thread starts: registered from here, so no cross-thread hop is needed.
    func addListener(_ fd: consuming FileDescriptor, tls: TLSServerContext?) throws(SystemError) {
        let listener = Listener<LoopServer>(fd: fd, owner: self, tls: tls)
        try loop.register(fd: listener.rawFD, events: CPWEvents.input, handler: listener)
        listeners.append(listener)
    }

    deinit {
        scratch.deallocate()
    }

    var connectionCount: Int { connections.count }

    /// Counts a connection just accepted against `maxConnections` and `maxConnectionsPerPeer`;
    /// false (nothing counted) when it is over either or the server is draining.
    func admit(peer: SocketAddress) -> Bool {
        let count = shared.connectionCount.add(1, ordering: .relaxed).newValue
        if count > shared.configuration.maxConnections || shared.isDraining {
            shared.connectionCount.subtract(1, ordering: .relaxed)
            shared.logger.debug("connection refused: limit reached", [
                "peer": peer.description, "max_connections": "\(shared.configuration.maxConnections)",
            ])
            return false
        }
        let host = PeerConnections.host(of: peer)
        if !shared.peers.admit(host, limit: shared.configuration.maxConnectionsPerPeer) {
            shared.connectionCount.subtract(1, ordering: .relaxed)
            shared.logger.debug("connection refused: per-peer limit reached", [
                "peer": peer.description, "max_connections_per_peer": "\(shared.configuration.maxConnectionsPerPeer)",
            ])
            return false
        }
        return true
    }

    /// Takes a connection accepted by this loop or handed to it by another; its slot in
    /// `openConnections` was reserved by the balancer.
    func adopt(_ socket: consuming FileDescriptor, peer: SocketAddress, tls: TLSServerContext?) {
        if isStopping {
            // Handed over while this loop began to stop: refused like any connection after shutdown.
            socket.close()
            openConnections.subtract(1, ordering: .relaxed)
            shared.connectionCount.subtract(1, ordering: .relaxed)
            shared.peers.release(PeerConnections.host(of: peer))
            return
        }
        // Small responses must leave at once, not wait for Nagle's algorithm.
        try? Syscall.setOption(socket.raw, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        // What a peer leaves unread stays in the output, counted, rather than in the kernel.
        if let bytes = shared.configuration.socketSendBufferBytes {
            try? Syscall.setOption(socket.raw, level: SOL_SOCKET, name: SO_SNDBUF, value: Int32(clamping: bytes))
        }
        let now = monotonicNanos()
        let stream: ByteStream
        if let tls {
            guard let made = ByteStream(tls: tls, application: .pwire, fd: socket, now: now) else {
                shared.logger.error("could not start a TLS session", ["peer": peer.description, "error": openSSLErrors()])
                openConnections.subtract(1, ordering: .relaxed)
                shared.connectionCount.subtract(1, ordering: .relaxed)
                shared.peers.release(PeerConnections.host(of: peer))
                return
            }
            stream = made
        } else {
            stream = ByteStream(clearText: socket)
        }
        let connection = Connection(stream: stream, peer: peer, owner: self, now: now)
        do {
            try connection.register()
        } catch {
            shared.logger.error("could not register a connection", ["error": "\(error)"])
            openConnections.subtract(1, ordering: .relaxed)
            shared.connectionCount.subtract(1, ordering: .relaxed)
            shared.peers.release(PeerConnections.host(of: peer))
            return
        }
        connections[ObjectIdentifier(connection)] = connection
        shared.logger.trace("connection opened", ["peer": peer.description, "loop": "\(loop.index)"])
    }

    func connectionClosed(_ connection: Connection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            openConnections.subtract(1, ordering: .relaxed)
            shared.connectionCount.subtract(1, ordering: .relaxed)
            shared.peers.release(PeerConnections.host(of: connection.peer))
        }
        if drainDeadline != nil, connections.isEmpty { stop() }
    }

    func scheduleFlush(_ connection: Connection) {
        if pendingFlush.isEmpty {
            loop.atEndOfIteration { [unowned self] in self.flushPending() }
        }
        pendingFlush.append(connection)
    }

    private func flushPending() {
        let batch = pendingFlush
        pendingFlush.removeAll(keepingCapacity: true)
        for connection in batch { connection.flush() }
    }

    private func tick() {
        let now = monotonicNanos()
        for listener in listeners { listener.retryIfDue(now: now) }
        if let drainDeadline, now >= drainDeadline {
            for connection in Array(connections.values) { connection.close(reason: "drain timeout") }
            stop()
            return
        }
        for connection in Array(connections.values) { connection.checkTimeouts(now: now) }
    }

    /// Graceful shutdown on this loop: stop accepting, GoAway to every connection, close each
    /// once its calls are answered, and stop the loop when none is left or the drain time is up.
    func beginDrain(timeoutNanos: UInt64) {
        guard drainDeadline == nil else { return }
        stopping.store(true, ordering: .relaxed)
        drainDeadline = monotonicNanos() &+ timeoutNanos
        for listener in listeners { listener.close() }
        listeners = []
        for connection in Array(connections.values) {
            connection.sendGoAway(status: .ok, message: "server is shutting down")
        }
        if connections.isEmpty { stop() }
    }

    /// Immediate shutdown: closes everything and stops the loop.
    func closeAll() {
        for listener in listeners { listener.close() }
        listeners = []
        for connection in Array(connections.values) { connection.close(reason: "server stopped") }
        stop()
    }

    private func stop() {
        guard !stopped else { return }
        stopped = true
        stopping.store(true, ordering: .relaxed)
        for listener in listeners { listener.close() }
        listeners = []
        loop.stop()
    }
}

/// Event masks used by the server.
enum CPWEvents {
    static var input: UInt32 { CPW_EPOLLIN | CPW_EPOLLET }
}
