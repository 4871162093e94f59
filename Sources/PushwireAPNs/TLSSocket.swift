import COpenSSL
import PushwireOpenSSL
import Glibc

/// Why a connection could not be made or was lost; the text ends up in the `.retry` reason of the
/// notifications that could not be sent.
struct ConnectionFailure: Error, Equatable {
    var reason: String

    /// The connect gave up because its client was told to stop.
    static let cancelled = ConnectionFailure(reason: "gateway shut down")
}

/// Lets a connect in progress give up as soon as its client is told to stop, rather than at its
/// deadline: the client's wake-up pipe is polled beside the socket.
struct ConnectCancellation {
    /// The read end of the client's non-blocking wake-up pipe; drained when it turns readable.
    let wakeDescriptor: Int32
    /// Whether the wake-up meant stop (a new job wakes the pipe too; the connect then goes on).
    let isCancelled: () -> Bool
}

/// A TLS client connection over a non-blocking TCP socket: connect, handshake with ALPN `h2` and
/// full certificate and host verification, then non-blocking reads and writes.
///
/// Used by one `NGHTTP2Connection` on its client's thread only.
final class TLSSocket {
    /// The socket, for `poll`.
    let descriptor: Int32
    private let ssl: OpaquePointer

    /// The result of one non-blocking read or write.
    enum IOResult {
        /// This many bytes were read or written.
        case bytes(Int)
        /// Nothing now; poll and try again.
        case wouldBlock
        /// The connection is over; the text says why.
        case closed(String)
    }

    /// Makes the TLS settings every connection of a client shares: TLS ≥ 1.2, peer verification
    /// against `caFile` (or the system store), ALPN offering only `h2`.
    static func makeContext(caFile: String?) throws(ConnectionFailure) -> OpaquePointer {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw ConnectionFailure(reason: "TLS: \(openSSLErrors())") }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        _ = cossl_set_min_tls12(context)
        let loaded: Int32
        if let caFile {
            loaded = SSL_CTX_load_verify_locations(context, caFile, nil)
        } else {
            loaded = SSL_CTX_set_default_verify_paths(context)
        }
        guard loaded == 1 else {
            let why = openSSLErrors()
            SSL_CTX_free(context)
            throw ConnectionFailure(reason: "TLS: cannot load the CA certificates \(caFile ?? "(system store)"): \(why)")
        }
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        // SSL_CTX_set_alpn_protos returns 0 on success, unlike the rest of OpenSSL.
        guard SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count)) == 0 else {
            SSL_CTX_free(context)
            throw ConnectionFailure(reason: "TLS: cannot set ALPN")
        }
        return context
    }

    /// Connects to `endpoint` and completes the TLS handshake before `deadline`.
    /// - Throws: `ConnectionFailure` when no address answers, the certificate does not verify for
    ///   the host, or the server does not select `h2`.
    ///   `.cancelled` when `cancellation` says so first.
    static func connect(to endpoint: APNsEndpoint, context: OpaquePointer, deadline: ContinuousClock.Instant,
                        cancellation: ConnectCancellation) throws(ConnectionFailure) -> TLSSocket {
        let descriptor = try connectTCP(endpoint, deadline: deadline, cancellation: cancellation)
        guard let ssl = SSL_new(context) else {
            close(descriptor)
            throw ConnectionFailure(reason: "TLS: \(openSSLErrors())")
        }
        let socket = TLSSocket(descriptor: descriptor, ssl: ssl)
        try socket.handshake(endpoint, deadline: deadline, cancellation: cancellation)
        return socket
    }

    private init(descriptor: Int32, ssl: OpaquePointer) {
        self.descriptor = descriptor
        self.ssl = ssl
    }

    deinit {
        SSL_free(ssl)
        close(descriptor)
    }

    private func handshake(_ endpoint: APNsEndpoint, deadline: ContinuousClock.Instant,
                           cancellation: ConnectCancellation) throws(ConnectionFailure) {
        SSL_set_fd(ssl, descriptor)
        cossl_set_write_modes(ssl)
        if endpoint.isIPLiteral {
            // No SNI for IP literals (RFC 6066); verify the address against the IP SANs.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), endpoint.host) == 1 else {
                throw ConnectionFailure(reason: "TLS: bad IP address \(endpoint.host)")
            }
        } else {
            guard cossl_set_sni(ssl, endpoint.host) == 1, SSL_set1_host(ssl, endpoint.host) == 1 else {
                throw ConnectionFailure(reason: "TLS: bad host name \(endpoint.host)")
            }
        }
        ERR_clear_error()
        while true {
            let result = SSL_connect(ssl)
            if result == 1 { break }
            let error = SSL_get_error(ssl, result)
            let events: Int16
            switch error {
            case SSL_ERROR_WANT_READ: events = Int16(POLLIN)
            case SSL_ERROR_WANT_WRITE: events = Int16(POLLOUT)
            default:
                let verify = SSL_get_verify_result(ssl)
                if verify != X509_V_OK {
                    throw ConnectionFailure(reason: "TLS: certificate verification failed: \(String(cString: X509_verify_cert_error_string(verify)))")
                }
                let why = error == SSL_ERROR_SYSCALL ? "connection closed during the handshake" : openSSLErrors()
                throw ConnectionFailure(reason: "TLS handshake: \(why)")
            }
            try Self.wait(descriptor, events: events, deadline: deadline, cancellation: cancellation, doing: "TLS handshake")
        }
        var selected: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &length)
        guard length == 2, let selected, selected[0] == UInt8(ascii: "h"), selected[1] == UInt8(ascii: "2") else {
            throw ConnectionFailure(reason: "the server did not select HTTP/2 (ALPN h2)")
        }
    }

    /// Reads what is available, at most `count` bytes.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> IOResult {
        let result = SSL_read(ssl, buffer, Int32(clamping: count))
        if result > 0 { return .bytes(Int(result)) }
        return failure(of: result, reading: true)
    }

    /// Writes up to `count` bytes; fewer may be taken (partial writes are on).
    func write(_ bytes: UnsafeRawPointer, count: Int) -> IOResult {
        let result = SSL_write(ssl, bytes, Int32(clamping: count))
        if result > 0 { return .bytes(Int(result)) }
        return failure(of: result, reading: false)
    }

    private func failure(of result: Int32, reading: Bool) -> IOResult {
        let error = SSL_get_error(ssl, result)
        switch error {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .closed("the server closed the connection")
        case SSL_ERROR_SYSCALL:
            let code = errno
            ERR_clear_error()
            // A signal interrupted the call; nothing was lost, try again on the next round.
            if code == EINTR { return .wouldBlock }
            return .closed(code == 0 ? "the server closed the connection" : String(cString: strerror(code)))
        default:
            let why = openSSLErrors()
            return .closed("TLS \(reading ? "read" : "write"): \(why)")
        }
    }

    private static func connectTCP(_ endpoint: APNsEndpoint, deadline: ContinuousClock.Instant,
                                   cancellation: ConnectCancellation) throws(ConnectionFailure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (endpoint.isIPLiteral ? AI_NUMERICHOST : 0)
        var addresses: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &addresses)
        guard resolved == 0, let addresses else {
            throw ConnectionFailure(reason: "cannot resolve \(endpoint.host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(addresses) }
        var lastFailure = ConnectionFailure(reason: "no address for \(endpoint.host)")
        var next: UnsafeMutablePointer<addrinfo>? = addresses
        while let address = next {
            next = address.pointee.ai_next
            let descriptor = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { continue }
            do throws(ConnectionFailure) {
                if Glibc.connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 {
                    guard errno == EINPROGRESS else { throw ConnectionFailure(reason: "connect: \(String(cString: strerror(errno)))") }
                    try wait(descriptor, events: Int16(POLLOUT), deadline: deadline, cancellation: cancellation, doing: "connect")
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length)
                    guard error == 0 else { throw ConnectionFailure(reason: "connect: \(String(cString: strerror(error)))") }
                }
                // Requests are small and latency matters; the loop already coalesces writes.
                var on: Int32 = 1
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                return descriptor
            } catch {
                close(descriptor)
                if error == .cancelled { throw error }
                lastFailure = error
            }
        }
        throw lastFailure
    }

    /// Polls `descriptor` for `events` until ready, `deadline`, or cancellation.
    private static func wait(_ descriptor: Int32, events: Int16, deadline: ContinuousClock.Instant,
                             cancellation: ConnectCancellation, doing what: String) throws(ConnectionFailure) {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw ConnectionFailure(reason: "\(what) timed out") }
            var entries = [pollfd(fd: descriptor, events: events, revents: 0),
                           pollfd(fd: cancellation.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&entries, 2, Int32(min(1000, NGHTTP2Client.milliseconds(left) + 1)))
            if ready < 0 {
                if errno == EINTR { continue }
                throw ConnectionFailure(reason: "\(what): poll: \(String(cString: strerror(errno)))")
            }
            if entries[1].revents != 0 {
                NGHTTP2Client.drain(cancellation.wakeDescriptor)
                if cancellation.isCancelled() { throw .cancelled }
            }
            if entries[0].revents != 0 { return }
        }
    }
}
