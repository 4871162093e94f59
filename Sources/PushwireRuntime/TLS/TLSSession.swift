#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import PushwireOpenSSL

/// What one read from a connection's byte stream gave.
enum StreamRead {
    case bytes(Int)
    /// The peer closed (TCP end of stream, or TLS close_notify).
    case end
    /// Nothing now; the loop reports readiness again.
    case wouldBlock
    /// The stream is broken; the text says why (errno, or TLS's reason).
    case failed(String)
}

/// What one write to a connection's byte stream took.
enum StreamWrite {
    case bytes(Int)
    case wouldBlock
    case failed(String)
}

/// The protocol a TLS listener's connections speak, which decides the ALPN answer.
enum TLSApplication {
    /// The binary RPC door: ALPN `pwire/1`.
    case pwire
    /// The HTTP door: ALPN `http/1.1` (HTTP/2 is not served).
    case http1
}

/// TLS on one accepted, non-blocking socket: OpenSSL reads and writes the descriptor itself, and
/// the handshake runs inside the first reads (accept state), so it never blocks a loop and needs
/// no thread. The connection sees plain bytes through `read`/`write`; this is the whole seam.
///
/// Loop thread only (the owning connection's).
final class TLSSession {
    private let ssl: OpaquePointer
    /// The last read could not go on until the socket is writable (a handshake message or a key
    /// update answer did not fit): the connection asks for EPOLLOUT and reads again then.
    private(set) var readWantsWrite = false
    /// A record is waiting in OpenSSL's write buffer; the next write must pass the same bytes on.
    private(set) var writePending = false
    /// Whether the last read may have left bytes behind: stopped with the caller's buffer full,
    /// or before an end or failure it reports on the next read. False once the socket was drained
    /// and OpenSSL holds no record: an edge-triggered reader waits for the next event then.
    private(set) var lastReadMayHaveLeftMore = false
    /// Set by the socket BIO's callback after each read(2): whether it left the socket empty
    /// (`cossl_watch_socket_reads`). Owned here, freed after the session.
    private let socketDrained: UnsafeMutablePointer<Int32>
    private var shutDown = false
    /// The end or failure a read met after returning the records before it: every later read
    /// reports it.
    private var ending: StreamRead?

    /// A session for `fd` on the context's current certificate, answering ALPN for
    /// `application`; nil when OpenSSL cannot make one.
    init?(context: TLSServerContext, fd: Int32, application: TLSApplication = .pwire) {
        guard let ssl = context.makeSession() else { return nil }
        self.ssl = ssl
        guard SSL_set_fd(ssl, fd) == 1 else {
            SSL_free(ssl)
            return nil
        }
        socketDrained = .allocate(capacity: 1)
        socketDrained.initialize(to: 0)
        cossl_watch_socket_reads(ssl, socketDrained)
        if application == .http1 { cossl_serve_http(ssl) }
        SSL_set_accept_state(ssl)
    }

    deinit {
        SSL_free(ssl)
        socketDrained.deallocate()
    }

    /// Whether the handshake has completed (the preface and frames flow only after it).
    var isHandshakeDone: Bool { SSL_is_init_finished(ssl) == 1 }

    /// Whether the client presented a certificate that leads to the server's client CA.
    var clientCertificateVerified: Bool { cossl_peer_certificate_verified(ssl) == 1 }

    /// What OpenSSL holds for this connection, for the byte budget: the session itself (an idle
    /// TLS connection measured 15.3 KiB of RSS with the connection's own state, docs/BENCHMARKS.md,
    /// TLS), plus a record buffer on each side while it holds data (`SSL_MODE_RELEASE_BUFFERS`
    /// gives them back once empty).
    var footprint: Int {
        var bytes = Self.sessionBytes
        if writePending { bytes += Self.recordBufferBytes }
        if SSL_has_pending(ssl) == 1 { bytes += Self.recordBufferBytes }
        return bytes
    }

    static let sessionBytes = 12 * 1024
    /// A TLS record (16 KiB) with its header, MAC and padding room.
    static let recordBufferBytes = 17 * 1024 + 512

    /// Reads as many records as have arrived, up to `buffer`'s size. The context reads ahead
    /// (`cossl_set_read_ahead`), so one read(2) takes every record the socket holds and the
    /// records OpenSSL holds are opened without a syscall; it stops once the socket is drained
    /// and nothing is held, instead of reading again for an EAGAIN (docs/BENCHMARKS.md, TLS).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> StreamRead {
        if let ending { return ending }
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .bytes(0) }
        ERR_clear_error()
        readWantsWrite = false
        lastReadMayHaveLeftMore = true
        var total = 0
        while total < buffer.count {
            let result = SSL_read(ssl, base + total, Int32(clamping: buffer.count - total))
            if result > 0 {
                total += Int(result)
                if socketDrained.pointee != 0, SSL_has_pending(ssl) == 0 {
                    lastReadMayHaveLeftMore = false
                    break
                }
                continue
            }
            let outcome: StreamRead
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ:
                lastReadMayHaveLeftMore = false
                return total > 0 ? .bytes(total) : .wouldBlock
            case SSL_ERROR_WANT_WRITE:
                // A handshake message or a key update answer must go out first.
                readWantsWrite = true
                lastReadMayHaveLeftMore = false
                return total > 0 ? .bytes(total) : .wouldBlock
            case SSL_ERROR_ZERO_RETURN:
                outcome = .end
            default:
                outcome = .failed(failure(during: "read"))
            }
            // The records before an end or a failure go first; the next read reports it.
            ending = outcome
            return total > 0 ? .bytes(total) : outcome
        }
        return .bytes(total)
    }

    func write(from buffer: UnsafeRawBufferPointer) -> StreamWrite {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .bytes(0) }
        ERR_clear_error()
        let result = SSL_write(ssl, base, Int32(clamping: buffer.count))
        if result > 0 {
            writePending = false
            return .bytes(Int(result))
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ:
            writePending = true
            return .wouldBlock
        default:
            return .failed(failure(during: "write"))
        }
    }

    /// Sends close_notify once, best effort (the socket's write side is shut down after it).
    func shutdown() {
        guard !shutDown, isHandshakeDone else { return }
        shutDown = true
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    private func failure(during operation: String) -> String {
        let stage = isHandshakeDone ? "TLS \(operation) failed" : "TLS handshake failed"
        let reason = openSSLErrors()
        if reason == noOpenSSLReason, errno != 0 {
            return "\(stage): \(SystemError(operation, errno: errno))"
        }
        return "\(stage): \(reason)"
    }
}
