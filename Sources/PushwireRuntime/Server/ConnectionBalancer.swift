import Synchronization

/// A loop of a door as the balancer sees it: how many connections it holds, and whether it still
/// takes new ones. Read from other loops' threads, hence atomics behind it.
protocol BalancedLoop: AnyObject, Sendable {
    /// Connections living on this loop, counting those handed to it and not yet adopted.
    var openConnectionCount: Int { get }
    /// Counts one more connection on this loop (a hand-over the balancer just chose).
    func reserveConnectionSlot()
    /// Whether this loop has begun to drain or stop (it takes no more connections).
    var isStopping: Bool { get }
}

/// Spreads accepted connections evenly over the event loops of one door.
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
final class ConnectionBalancer<Loop: BalancedLoop>: Sendable {
    /// Weak: the loops own the door's shared state, which owns the balancer.
    private struct LoopReference: @unchecked Sendable {
        // `@unchecked`: the loop is itself `Sendable`, and the weak reference is only read and
        // written under `loops`' lock.
        weak var server: Loop?
    }

    private let loops = Mutex<[LoopReference]>([])
    /// The connections a loop must hold before it hands a new one to a less busy loop.
    static var handOverFrom: Int { 2 }

    /// Sets the loops to balance over; called once, before any of them runs.
    func install(_ servers: [Loop]) {
        loops.withLock { $0 = servers.map { LoopReference(server: $0) } }
    }

    /// The loop a connection accepted by `acceptor` should live on; its open-connection count is
    /// raised before returning, so connections accepted at once by two loops do not pile onto the
    /// same third one.
    func reserveLoop(acceptedBy acceptor: Loop) -> Loop {
        loops.withLock { loops in
            var chosen = acceptor
            var fewest = acceptor.openConnectionCount
            let handsOver = fewest >= Self.handOverFrom
            for reference in loops where handsOver {
                guard let server = reference.server, server !== acceptor, !server.isStopping else { continue }
                let count = server.openConnectionCount
                if count < fewest { (chosen, fewest) = (server, count) }
            }
            chosen.reserveConnectionSlot()
            return chosen
        }
    }
}

