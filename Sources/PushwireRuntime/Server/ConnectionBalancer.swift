import Synchronization

/// Spreads accepted connections evenly over the event loops.
///
/// Each loop accepts on its own `SO_REUSEPORT` socket, and the kernel picks the socket by a hash
/// of the client's address and port: four connections from one client can land 4 + 0 on two loops,
/// leaving a core idle while the other is saturated. A loop that accepts a connection therefore
/// hands it to whichever loop has the fewest open connections (itself when tied), once, at accept
/// time; after that the connection stays on its loop for life.
///
/// A loop holding fewer than `handOverFrom` connections keeps the new one: a hand-over costs a
/// cross-thread wake-up of the other loop, which for short-lived connections arriving one after
/// another (each new TLS handshake while the previous connection's close is still being read, a
/// CLI's one call) cost more than the imbalance (docs/BENCHMARKS.md, TLS, new connections).
final class ConnectionBalancer: Sendable {
    /// Weak: the loops own the server's shared state, which owns the balancer.
    private struct LoopReference: @unchecked Sendable {
        // `@unchecked`: `LoopServer` is itself `@unchecked Sendable`, and the reference is only
        // read and written under `loops`' lock.
        weak var server: LoopServer?
    }

    private let loops = Mutex<[LoopReference]>([])
    /// The connections a loop must hold before it hands a new one to a less busy loop.
    static let handOverFrom = 2

    /// Sets the loops to balance over; called once, before any of them runs.
    func install(_ servers: [LoopServer]) {
        loops.withLock { $0 = servers.map { LoopReference(server: $0) } }
    }

    /// The loop a connection accepted by `acceptor` should live on; its open-connection count is
    /// raised before returning, so connections accepted at once by two loops do not pile onto the
    /// same third one.
    func reserveLoop(acceptedBy acceptor: LoopServer) -> LoopServer {
        loops.withLock { loops in
            var chosen = acceptor
            var fewest = acceptor.openConnections.load(ordering: .relaxed)
            let handsOver = fewest >= Self.handOverFrom
            for reference in loops where handsOver {
                guard let server = reference.server, server !== acceptor, !server.isStopping else { continue }
                let count = server.openConnections.load(ordering: .relaxed)
                if count < fewest { (chosen, fewest) = (server, count) }
            }
            chosen.openConnections.add(1, ordering: .relaxed)
            return chosen
        }
    }
}
