import PushwireWire
import Synchronization

extension Server {
    /// Serves requests whose path starts with `prefix` (e.g. `/json/1.3/`) on the HTTP door with
    /// `handler`, on the connection's event loop. Call before `start()`.
    public func registerHTTPRoute(prefix: String, _ handler: @escaping HTTPRouteHandler) {
        extensions.state.withLock { $0.routes.append((prefix, handler)) }
    }

    /// Adds a check that `GET /healthz` reports under `name` and that Health/Check obeys: the
    /// server is serving (200, SERVING) only while every check is, and answers 503 and
    /// NOT_SERVING otherwise, as while it drains. Called on the event loop for every health
    /// request on either door: keep it cheap, never block. Call before `start()`.
    public func addHealthCheck(_ name: String, _ check: @escaping @Sendable () -> HealthReport) {
        extensions.state.withLock { $0.healthChecks.append((name, check)) }
    }

    /// Adds metric families to `GET /metrics`: `collect` appends their current values at each
    /// scrape (from the scraping connection's loop; keep it cheap). Call before `start()`.
    public func addMetricsCollector(_ collect: @escaping @Sendable (inout PrometheusText) -> Void) {
        extensions.state.withLock { $0.collectors.append(collect) }
    }

    /// The HTTP door's bound address once started (with the real port when asked for 0), if any.
    /// It speaks TLS when the server has a certificate (`ServerConfiguration.tls`).
    public var httpAddress: SocketAddress? {
        extensions.state.withLock { $0.httpAddress }
    }

    /// The HTTP door's clear-text listener beside a TLS one (`HTTPConfiguration.plaintextListen`), if any.
    public var httpPlaintextAddress: SocketAddress? {
        extensions.state.withLock { $0.httpPlaintextAddress }
    }

    /// The HTTP connections living on each event loop (for tests and diagnostics); empty without
    /// the HTTP door or before `start()`.
    var httpConnectionsPerLoop: [Int] {
        extensions.state.withLock { $0.httpLoops }.map(\.server.openConnectionCount)
    }

    /// What `GET /metrics` would answer now (for tests and diagnostics); nil before `start()`.
    public func renderMetrics() -> String? {
        extensions.state.withLock { $0.metrics }?.render()
    }
}

/// The parts of a server the HTTP door adds, kept apart from the binary door's state.
final class ServerExtensions: Sendable {
    struct State {
        var routes: [(prefix: String, handler: HTTPRouteHandler)] = []
        var healthChecks: [(name: String, check: @Sendable () -> HealthReport)] = []
        var collectors: [@Sendable (inout PrometheusText) -> Void] = []
        var metrics: MetricsRegistry?
        var httpLoops: [HTTPLoopServerReference] = []
        var httpAddress: SocketAddress?
        var httpPlaintextAddress: SocketAddress?
    }

    /// `@unchecked Sendable`: the loop server is only touched through its loop's `execute`.
    struct HTTPLoopServerReference: @unchecked Sendable {
        let server: HTTPLoopServer
    }

    let state = Mutex(State())

    func makeMetrics(calls: CallMetrics, shared: ServerShared) -> MetricsRegistry {
        state.withLock { state in
            // `shared` held, not weakly: nothing it holds holds the registry, and a weak reference
            // would give it a side table, making every retain of it (every call) take the slow path.
            let metrics = MetricsRegistry(calls: calls, collectors: state.collectors) {
                BinaryDoorFigures(
                    connections: shared.connectionCount.load(ordering: .relaxed), bytesReceived: shared.rpcBytes?.value(0) ?? 0,
                    bytesSent: shared.rpcBytes?.value(1) ?? 0, blockingQueued: shared.blockingPool.queuedJobs,
                    largeRequestQueued: shared.largeRequestPool.queuedJobs,
                    descriptorRefusals: shared.descriptors.refusals.load(ordering: .relaxed))
            }
            state.metrics = metrics
            return metrics
        }
    }

    /// Opens one SO_REUSEPORT socket per loop on the HTTP address (TLS on `tls` when given), and
    /// one on the clear-text address when asked for, before the loops run.
    func openHTTPDoor(
        _ configuration: HTTPConfiguration?, tls: TLSServerContext?, loops: [LoopServer], table: MethodTable,
        metrics: MetricsRegistry, shared: ServerShared, logger: Logger
    ) throws(SystemError) {
        guard var configuration else { return }
        let (routes, checks) = state.withLock { ($0.routes, $0.healthChecks) }
        let router = HTTPRouter(table: table, routes: routes, healthChecks: checks,
                                isDraining: { shared.isDraining }, metrics: metrics)
        configuration.listen = try ListeningSocket.reserve(configuration.listen)
        // A clear-text listener beside clear text would be the same door twice.
        let plaintext = tls == nil ? nil : try configuration.plaintextListen.map { (given) throws(SystemError) in
            try ListeningSocket.reserve(given)
        }
        configuration.plaintextListen = plaintext
        let door = HTTPDoor(configuration: configuration, table: table, logger: logger, metrics: metrics, router: router, shared: shared)
        var servers: [HTTPLoopServerReference] = []
        for loopServer in loops {
            let server = HTTPLoopServer(loop: loopServer.loop, door: door)
            servers.append(HTTPLoopServerReference(server: server))
            try server.addListener(try ListeningSocket.open(on: configuration.listen), tls: tls)
            if let plaintext { try server.addListener(try ListeningSocket.open(on: plaintext), tls: nil) }
        }
        door.balancer.install(servers.map(\.server))
        state.withLock { state in
            state.httpLoops = servers
            state.httpAddress = configuration.listen
            state.httpPlaintextAddress = plaintext
        }
        logger.info("HTTP listening", ["address": configuration.listen.description, "tls": tls == nil ? "off" : "on"])
        if let plaintext { logger.info("HTTP listening in clear text", ["address": plaintext.description]) }
    }

    func drainHTTPDoor() {
        for reference in state.withLock({ $0.httpLoops }) {
            reference.server.loop.execute { reference.server.beginDrain() }
        }
    }

    func closeHTTPDoor() {
        for reference in state.withLock({ $0.httpLoops }) {
            reference.server.loop.execute { reference.server.closeAll() }
        }
    }

    /// After a failed start, nothing runs the loops: the sockets close with their owners.
    func closeHTTPDoorAfterFailedStart() {
        state.withLock { state in
            state.httpLoops = []
            state.httpAddress = nil
            state.httpPlaintextAddress = nil
        }
    }

    /// Once the loops have stopped: lets go of the HTTP side (its sockets close with it).
    func releaseHTTPDoor() {
        state.withLock { $0.httpLoops = [] }
    }
}
