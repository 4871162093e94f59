#if canImport(Glibc)
import Glibc
#endif
import PushwireWire

/// One of a loop's HTTP listening sockets: accepts every pending connection on each readiness
/// event and hands it to the loop's HTTP server, refusing (accept-and-close) those over the
/// door's connection limit or after shutdown began.
final class HTTPListener: EventHandler {
    private var fd: FileDescriptor
    private unowned let owner: HTTPLoopServer
    /// The TLS its connections speak; nil: clear text.
    private let tls: TLSServerContext?
    /// Set when accepting failed for lack of descriptors or memory: retried from the loop's tick,
    /// since an edge-triggered socket will not report the waiting connections again.
    private(set) var needsRetry = false

    init(fd: consuming FileDescriptor, owner: HTTPLoopServer, tls: TLSServerContext?) {
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
        let door = owner.door
        while fd.isOpen {
            let accepted: IOResult<(Int32, SocketAddress)>
            do {
                accepted = try Syscall.accept(fd.raw)
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
            if !door.shared.admitsDescriptor(client, peer: peer, door: "http") {
                socket.close()
                continue
            }
            let open = door.metrics.http.openConnections.add(1, ordering: .relaxed).newValue
            if open > door.configuration.maxConnections || owner.draining {
                door.metrics.http.openConnections.subtract(1, ordering: .relaxed)
                socket.close()
                continue
            }
            door.metrics.http.connectionAccepted()
            owner.adopt(socket, peer: peer, tls: tls)
        }
    }

    /// Stops listening: deregisters and closes the socket.
    func close() {
        guard fd.isOpen else { return }
        owner.loop.deregister(fd: fd.raw)
        fd.close()
    }
}
