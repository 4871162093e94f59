#if canImport(Glibc)
import Glibc
#endif
import PushwireWire

/// One event loop's side of a door (the binary door's `LoopServer`, the HTTP door's
/// `HTTPLoopServer`), as its listeners and its door's balancer see it: what an accepted
/// connection is counted against and handed to.
protocol ListeningDoor: BalancedLoop {
    /// The loop this side of the door runs on.
    var loop: EventLoop { get }
    /// The server's shared state: the logger, the accept-failure warning and the descriptor
    /// ceiling that both doors' connections count against.
    var shared: ServerShared { get }
    /// Spreads the door's connections over its loops.
    var balancer: ConnectionBalancer<Self> { get }
    /// The door's name in log lines (`door=rpc`, `door=http`).
    static var doorName: String { get }
    /// Counts a connection just accepted against the door's own limits (connections in all,
    /// per peer, draining); false when it is refused, after saying why at debug level (the
    /// listener then closes it).
    func admit(peer: SocketAddress) -> Bool
    /// Takes a connection admitted by a listener of any of the door's loops; its slot on this
    /// loop was reserved by the balancer. On this loop's thread.
    func adopt(_ socket: consuming FileDescriptor, peer: SocketAddress, tls: TLSServerContext?)
}

/// A listening socket of one door on one loop: accepts every pending connection on each
/// readiness event, refuses (accept-and-close) those at the descriptor ceiling or over the door's
/// limits, and hands the others to the least busy loop of the door. One type for both doors, so
/// that they back off, log and balance alike.
final class Listener<Door: ListeningDoor>: EventHandler {
    private var fd: FileDescriptor
    private unowned let owner: Door
    /// The TLS its connections speak; nil: clear text.
    private let tls: TLSServerContext?
    /// When accept failed for lack of descriptors or memory: an edge-triggered socket will not
    /// report the waiting connections again, so the loop's tick retries them after a backoff.
    private var backoff = AcceptBackoff()

    init(fd: consuming FileDescriptor, owner: Door, tls: TLSServerContext?) {
        self.fd = fd
        self.owner = owner
        self.tls = tls
    }

    var rawFD: Int32 { fd.raw }

    func handleEvents(_ events: UInt32) {
        acceptAll()
    }

    /// Accepts again if a failure's backoff is over at `now`; from the loop's tick.
    func retryIfDue(now: UInt64) {
        if backoff.isDue(now: now) { acceptAll() }
    }

    private func acceptAll() {
        backoff.retrying()
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
                    let delay = backoff.failed(now: now)
                    // Every loop of both doors retries while the condition lasts: one line per
                    // interval for the whole server, saying how many failures it stands for.
                    if let held = shared.acceptFailures.occurred(now: now) {
                        shared.logger.warning("accept failed; retrying with backoff", [
                            "door": Door.doorName, "error": "\(error)", "retry_ms": "\(delay / 1_000_000)",
                            "failures_since_last_warning": "\(held)",
                        ])
                    }
                    return
                default:
                    shared.logger.error("accept failed", ["door": Door.doorName, "error": "\(error)"])
                    return
                }
            }
            guard case .processed(let (client, peer)) = accepted else { return }
            backoff.succeeded()
            var socket = FileDescriptor(client)
            guard shared.admitsDescriptor(client, peer: peer, door: Door.doorName), owner.admit(peer: peer) else {
                socket.close()
                continue
            }
            let home = owner.balancer.reserveLoop(acceptedBy: owner)
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

/// When a listener whose accept failed for lack of descriptors or memory tries again: after
/// 100 ms, doubled on each failure up to 1.6 s so that a server out of descriptors does not spin
/// on accept, and back to 100 ms once a connection is accepted.
struct AcceptBackoff {
    static let minimumDelay: UInt64 = 100_000_000
    static let maximumDelay: UInt64 = 1_600_000_000

    /// When the pending retry is due (monotonic nanoseconds); nil: none pending.
    private(set) var retryAt: UInt64?
    private(set) var delay = AcceptBackoff.minimumDelay

    /// Whether a retry is pending and due at `now`.
    func isDue(now: UInt64) -> Bool {
        guard let retryAt else { return false }
        return now >= retryAt
    }

    /// Accepting starts (on an event or a retry): no retry pending until it fails again.
    mutating func retrying() {
        retryAt = nil
    }

    /// Accept failed at `now`: schedules the retry; returns the wait before it.
    mutating func failed(now: UInt64) -> UInt64 {
        let wait = delay
        retryAt = now &+ wait
        delay = min(delay * 2, Self.maximumDelay)
        return wait
    }

    /// A connection was accepted: the next failure waits the minimum again.
    mutating func succeeded() {
        delay = Self.minimumDelay
    }
}
