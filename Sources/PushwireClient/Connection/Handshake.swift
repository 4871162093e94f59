#if canImport(Glibc)
import Glibc
#endif
import PushwireSystem
import PushwireWire

/// The start of a connection: our preface out, the server's preface and Settings in.
enum Handshake {
    /// Why the handshake failed, beyond a failed system call.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
        var timedOut = false
    }

    /// How long one blocked write may wait for the server to read.
    static let sendTimeout: Duration = .seconds(30)

    /// Connects to `address` within `timeout` (a blocking socket with TCP_NODELAY), with writes
    /// bounded by `sendTimeout`.
    static func openSocket(to address: String, timeout: Duration) throws -> Int32 {
        let fd = try Syscall.connect(to: address, timeout: timeout)
        // Writes happen on the calling task's thread: bound how long a server that stops reading
        // can hold it; a write that times out counts as a lost connection.
        Syscall.setTimeout(fd, option: SO_SNDTIMEO, sendTimeout)
        return fd
    }

    /// Runs the TLS handshake on the blocking socket, within `deadline`.
    static func startTLS(fd: Int32, address: String, options: ClientTLSOptions, deadline: ContinuousClock.Instant) throws -> ClientTLS {
        let host = try HostPort(parsing: address).host
        let session = try ClientTLS(options: options, host: host)
        defer { Syscall.setTimeout(fd, option: SO_RCVTIMEO, nil) }
        try session.handshake(fd: fd) {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return true }
            Syscall.setTimeout(fd, option: SO_RCVTIMEO, remaining)
            return false
        }
        return session
    }

    /// Runs the handshake on a blocking socket (inside TLS when `tls` is given); bytes read past
    /// the Settings frame stay in `decoder`.
    static func run(fd: Int32, decoder: inout FrameDecoder, deadline: ContinuousClock.Instant, tls: ClientTLS? = nil) throws -> ServerSettings {
        try WireProtocol.preface.withUnsafeBytes { bytes in
            if let tls { try tls.sendBlocking(fd: fd, bytes) } else { try Syscall.sendAll(fd, bytes) }
        }
        defer { Syscall.setTimeout(fd, option: SO_RCVTIMEO, nil) }
        while true {
            if let frame = try decoder.nextFrame() {
                switch InboundFrame(frame) {
                case .settings(let settings):
                    return settings
                case .goAway(_, let code, let message):
                    // A server at its connection limit, or shutting down, says so before closing.
                    throw Failure(description: "the server refused the connection: \(code.name)\(message.isEmpty ? "" : ": \(message)")")
                default:
                    throw Failure(description: "the server did not send Settings first")
                }
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw Failure(description: "handshake timed out", timedOut: true) }
            Syscall.setTimeout(fd, option: SO_RCVTIMEO, remaining)
            let count: Int
            do {
                count = try decoder.withWritableTail(minimumCapacity: 16 * 1024) { buffer in
                    if let tls { return try tls.readBlocking(fd: fd, into: buffer) }
                    return try Syscall.blockingRead(fd, into: buffer)
                }
            } catch let error as SystemError where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
                throw Failure(description: "handshake timed out", timedOut: true)
            }
            if count == 0 { throw Failure(description: "the server closed the connection during the handshake") }
        }
    }

    /// Maps a connect or handshake failure onto the `RPCError` callers see.
    static func rpcError(_ error: any Error, address: String) -> RPCError {
        switch error {
        case let error as RPCError:
            return error
        case let error as AddressError:
            return RPCError(.invalidArgument, error.message, cause: error)
        case let error as ClientTLS.Failure:
            return RPCError(.unavailable, "cannot connect to \(address): \(error)", cause: error)
        case let error as Failure where error.timedOut:
            return RPCError(.deadlineExceeded, "cannot connect to \(address): \(error)", cause: error)
        case let error as SystemError where error.errno == ETIMEDOUT:
            return RPCError(.deadlineExceeded, "cannot connect to \(address): connect timed out", cause: error)
        default:
            return RPCError(.unavailable, "cannot connect to \(address): \(error)", cause: error)
        }
    }
}
