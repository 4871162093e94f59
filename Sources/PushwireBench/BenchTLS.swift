import COpenSSL
import PushwireOpenSSL
import Glibc
import PushwireSystem
import PushwireWire

/// TLS for the harness's connections (`--tls`, `--ca-file`, `--server-name`, `pwires://`): one
/// client context for the run, the handshake on the blocking socket before the clock starts,
/// then OpenSSL reads and writes the non-blocking socket itself (each connection belongs to
/// one worker thread, so a session is never used by two threads).
struct BenchTLS {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let context: OpaquePointer
    /// The name verified (and sent as SNI unless it is an address).
    let serverName: String

    init(caFile: String?, serverName: String) throws(Failure) {
        // OpenSSL writes the socket with write(2): a server that closed must give EPIPE, not SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw Failure(description: "TLS: cannot make a context") }
        _ = cossl_set_min_tls12(context)
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let loaded = caFile.map { SSL_CTX_load_verify_locations(context, $0, nil) } ?? SSL_CTX_set_default_verify_paths(context)
        guard loaded == 1 else { throw Failure(description: "TLS: cannot load the CA certificates \(caFile ?? "(system store)")") }
        let alpn: [UInt8] = [7] + Array("pwire/1".utf8)
        _ = SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count))
        // Every connection of a run makes a full handshake: no session is resumed.
        _ = cossl_client_no_session_cache(context)
        // One read(2) takes every record that has arrived (see BenchConnection.readFrames).
        cossl_set_read_ahead(context)
        self.context = context
        self.serverName = serverName
    }

    /// The full handshake on the blocking socket `fd`; the session then reads and writes `fd`.
    func handshake(fd: Int32) throws(Failure) -> OpaquePointer {
        guard let ssl = SSL_new(context) else { throw Failure(description: "TLS: out of memory") }
        SSL_set_fd(ssl, fd)
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, serverName, &v4) == 1 || inet_pton(AF_INET6, serverName, &v6) == 1 {
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
        } else {
            _ = cossl_set_sni(ssl, serverName)
            _ = SSL_set1_host(ssl, serverName)
        }
        ERR_clear_error()
        guard SSL_connect(ssl) == 1 else {
            let verify = SSL_get_verify_result(ssl)
            let reason = verify != X509_V_OK
                ? "certificate verification failed for \(serverName): \(String(cString: X509_verify_cert_error_string(verify)))"
                : "handshake failed: \(openSSLErrors())"
            SSL_free(ssl)
            throw Failure(description: "TLS: \(reason)")
        }
        cossl_set_write_modes(ssl)
        return ssl
    }
}

/// The session's outcome for one non-blocking read or write.
enum BenchTLSIO {
    case bytes(Int)
    case wouldBlock
    case closed
}

extension BenchTLS {
    static func read(_ ssl: OpaquePointer, into buffer: UnsafeMutableRawBufferPointer) -> BenchTLSIO {
        let n = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if n > 0 { return .bytes(Int(n)) }
        let error = SSL_get_error(ssl, n)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .wouldBlock }
        ERR_clear_error()
        return .closed
    }

    static func write(_ ssl: OpaquePointer, from buffer: UnsafeRawBufferPointer) -> BenchTLSIO {
        let n = SSL_write(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if n > 0 { return .bytes(Int(n)) }
        let error = SSL_get_error(ssl, n)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return .wouldBlock }
        ERR_clear_error()
        return .closed
    }
}
