#if canImport(Glibc)
import Glibc
#endif
import PushwireWire

/// A loop's listening socket: accepts every pending connection on each readiness event and hands
/// it to its loop, refusing (accept-and-close) those over the server's connection limit.
final class Listener: EventHandler {
    private var fd: FileDescriptor
    private unowned let owner: LoopServer
    /// The TLS its connections speak; nil: clear text.
    private let tls: TLSServerContext?
    /// Set when accepting failed for lack of descriptors or memory: retried from a tick at
    /// `retryAt`, since an edge-triggered socket will not report the waiting connections again.
    private(set) var needsRetry = false
    /// When the next retry is due (monotonic nanoseconds).
    private(set) var retryAt: UInt64 = 0
    /// The wait before the next retry: doubled on each failure up to `maximumRetryDelay`, so that
    /// a server out of descriptors does not spin on accept; back to the minimum once one works.
    private var retryDelay = Listener.minimumRetryDelay
    static let minimumRetryDelay: UInt64 = 100_000_000
    static let maximumRetryDelay: UInt64 = 1_600_000_000

    init(fd: consuming FileDescriptor, owner: LoopServer, tls: TLSServerContext?) {
        self.fd = fd
        self.owner = owner
        self.tls = tls
    }

    var rawFD: Int32 { fd.raw }

    func handleEvents(_ events: UInt32) {
        acceptAll()
    }

    func acceptAll() {
        needsRetry = false
        let shared = owner.shared
        while fd.isOpen {
            let accepted: IOResult<(Int32, SocketAddress)>
            do {
                accepted = try Syscall.accept(fd.raw)
            } catch {
                switch error.errno {
                case ECONNABORTED, EPROTO:
                    continue  // the peer gave up while queued; the next one may be fine
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    let now = monotonicNanos()
                    // Every loop retries while the condition lasts: one line per interval for the
                    // whole server, saying how many failures it stands for.
                    if let held = shared.acceptFailures.occurred(now: now) {
                        shared.logger.warning("accept failed; retrying with backoff", [
                            "error": "\(error)", "retry_ms": "\(retryDelay / 1_000_000)", "failures_since_last_warning": "\(held)",
                        ])
                    }
                    needsRetry = true
                    retryAt = now &+ retryDelay
                    retryDelay = min(retryDelay * 2, Self.maximumRetryDelay)
                    return
                default:
                    shared.logger.error("accept failed", ["error": "\(error)"])
                    return
                }
            }
            guard case .processed(let (client, peer)) = accepted else { return }
            retryDelay = Self.minimumRetryDelay
            var socket = FileDescriptor(client)
            if !shared.admitsDescriptor(client, peer: peer, door: "rpc") {
                socket.close()
                continue
            }
            let count = shared.connectionCount.add(1, ordering: .relaxed).newValue
            if count > shared.configuration.maxConnections || shared.isDraining {
                shared.connectionCount.subtract(1, ordering: .relaxed)
                shared.logger.debug("connection refused: limit reached", [
                    "peer": peer.description, "max_connections": "\(shared.configuration.maxConnections)",
                ])
                socket.close()
                continue
            }
            let host = PeerConnections.host(of: peer)
            if !shared.peers.admit(host, limit: shared.configuration.maxConnectionsPerPeer) {
                shared.connectionCount.subtract(1, ordering: .relaxed)
                shared.logger.debug("connection refused: per-peer limit reached", [
                    "peer": peer.description, "max_connections_per_peer": "\(shared.configuration.maxConnectionsPerPeer)",
                ])
                socket.close()
                continue
            }
            let home = shared.balancer.reserveLoop(acceptedBy: owner)
            if home === owner {
                owner.adopt(socket, peer: peer, tls: tls)
            } else {
                let descriptor = socket.release()
                let tls = self.tls
                home.loop.execute { home.adopt(FileDescriptor(descriptor), peer: peer, tls: tls) }
            }
        }
    }

    /// Stops listening: deregisters and closes the socket.
    func close() {
        guard fd.isOpen else { return }
        owner.loop.deregister(fd: fd.raw)
        fd.close()
    }
}
