#if canImport(Glibc)
import Glibc
#endif
import PushwireWire
import Synchronization

/// The Pushwire RPC server: N event loops, each with its own epoll, its own SO_REUSEPORT listening
/// socket and its own connections; one method table shared read-only by all of them.
///
/// Register methods, then `start()`, then `waitUntilStopped()`:
/// ```swift
/// let server = Server(configuration: ServerConfiguration(), logger: Logger(label: "pushwired"))
/// server.register(Methods.Health.check) { context, request in … }
/// let address = try server.start()
/// server.waitUntilStopped()
/// ```
public final class Server: Sendable {
    private enum Phase {
        case configuring([String: RegisteredMethod])
        case running(shared: ServerShared, loops: [LoopServer], address: SocketAddress)
        case stopped
    }

    /// The configuration the server was created with.
    public let configuration: ServerConfiguration
    /// Where the server logs.
    public let logger: Logger
    private let phase: Mutex<Phase>
    private let signalWatcher = Mutex<SignalWatcher?>(nil)
    private let hangUpWatcher = Mutex<SignalWatcher?>(nil)
    /// Where `configuration.plaintextListen` was bound, once started.
    private let boundPlaintextAddress = Mutex<SocketAddress?>(nil)
    /// Names the application of each call in the debug call log (`describeCalls`).
    private let callDescriber = Mutex<CallLog.Describe?>(nil)
    /// Raw fast paths by method path (`registerRawFastPath`); read once by `start()`.
    private let rawFastPaths = Mutex<[String: RawFastPathHandler]>([:])
    /// HTTP routes, health checks, metrics collectors, and the HTTP door once started (Server+HTTP.swift).
    let extensions = ServerExtensions()

    /// Creates a server; it listens once `start()` is called.
    public init(configuration: ServerConfiguration, logger: Logger = Logger(label: "pushwired")) {
        self.configuration = configuration
        self.logger = logger
        phase = Mutex(.configuring([:]))
    }

    // MARK: Registration

    private func add(_ method: RegisteredMethod) {
        phase.withLock { phase in
            guard case .configuring(var methods) = phase else {
                logger.error("method registered after start; ignored", ["method": method.descriptor.path])
                return
            }
            methods[method.descriptor.path] = method
            phase = .configuring(methods)
        }
    }

    /// Puts a raw fast path in front of `method`, which must also be registered with one of the
    /// other functions: each request of `method` is first handed to `handler` as its message's
    /// bytes, in place, before any decoding; `.response` answers at once, `.later` answers from
    /// another thread (the runtime tracks the call's deadline and Cancel as for `registerAsync`),
    /// and `.decline` sends the call to the registered handler, which then decodes and answers
    /// it — so every error a call can get stays in that one handler. Metadata is not passed:
    /// a method whose answer depends on it has no fast path. Call before `start()`.
    ///
    /// Why: a small unary call through the regular path unpacks the frame and the request with
    /// protobuf-c, copies the metadata into Swift values and encodes the response through the
    /// generated wrapper; for a call answered from a cache that is several times the work of the
    /// answer (docs/BENCHMARKS.md, SyncCategories).
    public func registerRawFastPath<Request, Response>(_ method: MethodDescriptor<Request, Response>, _ handler: @escaping RawHandler) {
        rawFastPaths.withLock { $0[method.path] = RawFastPathHandler(call: handler) }
    }

    /// Registers a handler that runs on the event loop, inline with the read that delivered the
    /// request: for cheap, non-blocking work. Its request is decoded and its response encoded by
    /// the runtime; a thrown `RPCError` becomes the call's status. Call before `start()`.
    public func register<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable (RequestContext, Request) throws(RPCError) -> Response
    ) {
        add(.sync(method, handler))
    }

    /// Registers an async handler, run in a task off the event loop; its result hops back to the
    /// connection's loop. A deadline or Cancel answers the call first and drops the later result
    /// (`context.isCancelled` turns true). Call before `start()`.
    public func registerAsync<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable (RequestContext, Request) async throws(RPCError) -> Response
    ) {
        add(.async(method, handler))
    }

    /// Registers a handler with a cheap path and an awaiting one: `fast` runs on the event loop and
    /// answers when it returns a response; when it returns nil, `slow` runs in a task, as with
    /// `registerAsync`. Call before `start()`.
    public func registerWithFallback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        fast: @escaping @Sendable (RequestContext, Request) throws(RPCError) -> Response?,
        slow: @escaping @Sendable (RequestContext, Request) async throws(RPCError) -> Response
    ) {
        add(.withFallback(method, fast: fast, slow: slow))
    }

    /// Registers a handler that runs on the event loop and answers later by calling its
    /// completion exactly once, from any thread (e.g. a store's syncer once a commit is durable).
    /// The call is tracked as an async one's (deadline, Cancel, close); the handler must not
    /// block. Call before `start()`.
    public func registerCallback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable (RequestContext, Request, @escaping @Sendable (Result<Response, RPCError>) -> Void) -> Void
    ) {
        add(.callback(method, handler))
    }

    /// Registers a handler that blocks (disk, database): run on one of the server's blocking
    /// threads (`configuration.blockingThreads`), never on an event loop nor on Swift's
    /// cooperative pool. Connections take turns on those threads, each with at most
    /// `maxBlockingCallsPerConnection` calls there; a call cancelled or past its deadline before
    /// its turn never runs. Call before `start()`.
    public func registerBlocking<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable (RequestContext, Request) throws(RPCError) -> Response
    ) {
        add(.blocking(method, handler))
    }

    // MARK: Lifecycle

    /// Opens the listening sockets and starts the event loops.
    /// - Returns: the address actually bound (with the real port when the configuration asked for 0).
    /// - Throws: `SystemError` when a socket cannot be opened or bound, or a thread cannot start.
    @discardableResult
    public func start() throws(SystemError) -> SocketAddress {
        let methods: [String: RegisteredMethod]
        switch phase.withLock({ $0 }) {
        case .configuring(let registered): methods = registered
        case .running(_, _, let address): return address
        case .stopped: throw SystemError("start", errno: EINVAL)
        }
        let threads = max(1, configuration.threads)
        let reference = SharedReference()
        // One health state for both doors: Health/Check asks the same checks `/healthz` reports
        // (`addHealthCheck`, e.g. the store's), so the two never disagree.
        let checks = extensions.state.withLock { $0.healthChecks }
        if !checks.isEmpty {
            reference.isServing = { checks.allSatisfy { $0.check().serving } }
        }
        let allMethods = BuiltinServices.adding(to: methods, state: reference)
        let callMetrics = CallMetrics(paths: allMethods.keys.sorted())
        let fastPaths = rawFastPaths.withLock { $0 }
        let table = configuration.recordsCallMetrics
            ? MethodTable(InstrumentedMethods.wrap(allMethods, metrics: callMetrics), rawFastPaths: fastPaths, callMetrics: callMetrics,
                          clientCertificateServices: configuration.clientCertificateServices)
            : MethodTable(allMethods, rawFastPaths: fastPaths, clientCertificateServices: configuration.clientCertificateServices)
        let shared = ServerShared(configuration: configuration, table: table, logger: logger, describeCall: callDescriber.withLock { $0 })
        reference.shared = shared
        let metrics = extensions.makeMetrics(calls: callMetrics, shared: shared)

        var loops: [LoopServer] = []
        var address = configuration.listen
        var started = 0
        do throws(SystemError) {
            // The port is checked free (and chosen, for port 0) once, then every loop binds its
            // own SO_REUSEPORT socket on it.
            address = try ListeningSocket.reserve(address)
            let plaintext = try configuration.plaintextListen.map { (given) throws(SystemError) in try ListeningSocket.reserve(given) }
            for index in 0..<threads {
                let fd = try ListeningSocket.open(on: address)
                let loop = try EventLoop(index: index)
                let loopServer = try LoopServer(loop: loop, shared: shared, listenerFD: fd, tls: configuration.tls)
                loops.append(loopServer)
                if let plaintext { try loopServer.addListener(try ListeningSocket.open(on: plaintext), tls: nil) }
            }
            boundPlaintextAddress.withLock { $0 = plaintext }
            shared.balancer.install(loops)
            try extensions.openHTTPDoor(configuration.http, tls: configuration.tls, loops: loops, table: table, metrics: metrics, shared: shared, logger: logger)
            for loopServer in loops {
                try loopServer.loop.start()
                started += 1
            }
        } catch {
            for (index, loopServer) in loops.enumerated() {
                if index < started {
                    loopServer.loop.execute { loopServer.closeAll() }
                    loopServer.loop.join()
                } else {
                    // Never ran: nothing else touches it, so it is closed from here.
                    loopServer.closeAll()
                    loopServer.loop.discardRegistrations()
                }
            }
            extensions.closeHTTPDoorAfterFailedStart()
            shared.blockingPool.stop()
            shared.largeRequestPool.stop()
            throw error
        }
        phase.withLock { $0 = .running(shared: shared, loops: loops, address: address) }
        logger.info("listening", ["address": address.description, "threads": "\(threads)", "tls": configuration.tls == nil ? "off" : "on",
                                  "descriptor_limit": shared.descriptors.limit.map { "\($0)" } ?? "unlimited",
                                  "descriptor_reserve": "\(shared.descriptors.reserve)"])
        if let plaintext = plaintextAddress { logger.info("listening in clear text", ["address": plaintext.description]) }
        return address
    }

    /// The bound address once started.
    public var localAddress: SocketAddress? {
        if case .running(_, _, let address) = phase.withLock({ $0 }) { return address }
        return nil
    }

    /// The bound address of `configuration.plaintextListen` once started; nil without one.
    public var plaintextAddress: SocketAddress? { boundPlaintextAddress.withLock { $0 } }

    /// Connections currently open, across all loops.
    public var connectionCount: Int {
        if case .running(let shared, _, _) = phase.withLock({ $0 }) {
            return shared.connectionCount.load(ordering: .relaxed)
        }
        return 0
    }

    /// Open connections on each event loop, in loop order (how evenly accepted connections were
    /// spread; for tests and diagnostics).
    public var connectionsPerLoop: [Int] {
        if case .running(_, let loops, _) = phase.withLock({ $0 }) {
            return loops.map { $0.openConnections.load(ordering: .relaxed) }
        }
        return []
    }

    /// Backpressure so far: how often a connection's input was paused because its client did not
    /// read its responses, and the most response bytes one such connection held.
    public var backpressureStatistics: (pauses: Int, peakBufferedBytes: Int) {
        if case .running(let shared, _, _) = phase.withLock({ $0 }) {
            return (shared.backpressurePauses.load(ordering: .relaxed), shared.peakPausedOutputBytes.load(ordering: .relaxed))
        }
        return (0, 0)
    }

    /// The most bytes one connection made the server hold at once (unsent responses, requests
    /// whose work had not ended, answer reservations: what `maxOutputBufferBytes` bounds), and
    /// how many blocking calls were dropped unstarted because they were cancelled or expired.
    public var budgetStatistics: (peakHeldBytes: Int, blockingCallsSkipped: Int) {
        if case .running(let shared, _, _) = phase.withLock({ $0 }) {
            return (shared.peakHeldBytes.load(ordering: .relaxed), shared.blockingCallsSkipped.load(ordering: .relaxed))
        }
        return (0, 0)
    }

    /// The bytes held for all connections together (to within 16 KiB per connection), now and at
    /// most so far: what `maxBufferedBytes` bounds.
    public var bufferedBytesStatistics: (current: Int, peak: Int) {
        if case .running(let shared, _, _) = phase.withLock({ $0 }) {
            return (shared.bufferedBytes.load(ordering: .relaxed), shared.peakBufferedBytes.load(ordering: .relaxed))
        }
        return (0, 0)
    }

    /// Connections (either door) closed at once because their descriptor fell within the reserve
    /// under the open-file limit (`ServerConfiguration.descriptorReserve`), since start.
    public var descriptorRefusals: Int {
        if case .running(let shared, _, _) = phase.withLock({ $0 }) { return shared.descriptors.refusals.load(ordering: .relaxed) }
        return 0
    }

    /// Whether a graceful shutdown has begun (Health answers NOT_SERVING from then on).
    public var isDraining: Bool {
        if case .running(let shared, _, _) = phase.withLock({ $0 }) { return shared.isDraining }
        return false
    }

    /// Graceful shutdown: stop accepting, send GoAway(last accepted call id, OK) on every
    /// connection, let calls in flight finish for up to `configuration.drainTimeout`, then close.
    /// Returns at once; `waitUntilStopped()` returns when it is done.
    public func beginShutdown() {
        guard case .running(let shared, let loops, _) = phase.withLock({ $0 }) else { return }
        if shared.draining.exchange(true, ordering: .relaxed) { return }
        logger.info("shutting down", ["drain_timeout_ms": "\(configuration.drainTimeout.milliseconds32)"])
        let timeout = configuration.drainTimeout.nanoseconds
        extensions.drainHTTPDoor()
        for loopServer in loops {
            loopServer.loop.execute { loopServer.beginDrain(timeoutNanos: timeout) }
        }
    }

    /// Closes every connection and stops at once, answering nothing more.
    public func shutdownNow() {
        guard case .running(let shared, let loops, _) = phase.withLock({ $0 }) else { return }
        shared.draining.store(true, ordering: .relaxed)
        extensions.closeHTTPDoor()
        for loopServer in loops {
            loopServer.loop.execute { loopServer.closeAll() }
        }
    }

    /// Blocks until every loop has stopped (after `beginShutdown()` or `shutdownNow()`).
    public func waitUntilStopped() {
        guard case .running(let shared, let loops, _) = phase.withLock({ $0 }) else { return }
        for loopServer in loops { loopServer.loop.join() }
        extensions.releaseHTTPDoor()
        shared.blockingPool.stop()
        shared.largeRequestPool.stop()
        phase.withLock { $0 = .stopped }
        signalWatcher.withLock { $0 = nil }
        logger.info("stopped")
    }

    /// Makes SIGTERM and SIGINT start a graceful shutdown (a second one exits the process at once
    /// with status 1). Call before `start()`: the signals are blocked in the calling thread so that
    /// the loop threads inherit the mask and the signals are read from a signalfd, never handled
    /// inside a signal handler.
    public func handleTerminationSignals() throws(SystemError) {
        let watcher = try SignalWatcher(signals: [SIGTERM, SIGINT]) { [weak self] signal, count in
            guard let self else { return }
            if count == 1 {
                self.logger.notice("signal received; draining", ["signal": "\(signal)"])
                self.beginShutdown()
            } else {
                self.logger.warning("second signal; exiting now", ["signal": "\(signal)"])
                _exit(1)
            }
        }
        signalWatcher.withLock { $0 = watcher }
    }

    /// With the logger at `debug`, each call gets a line (method, status, duration, peer); `describe`
    /// adds the application it acted for, from the method path, the metadata and the request
    /// message. It must not return a secret. Call before `start()`.
    public func describeCalls(_ describe: @escaping @Sendable (_ method: String, _ metadata: [(key: String, value: String)], _ message: [UInt8]) -> String?) {
        callDescriber.withLock { $0 = describe }
    }

    /// Calls `action` on a thread of its own each time SIGHUP arrives (logrotate's "reopen your
    /// files"), instead of SIGHUP's default of ending the process. Call before `start()`, for the
    /// same reason as `handleTerminationSignals()`.
    public func handleHangUp(_ action: @escaping @Sendable () -> Void) throws(SystemError) {
        let watcher = try SignalWatcher(signals: [SIGHUP]) { _, _ in action() }
        hangUpWatcher.withLock { $0 = watcher }
    }
}
