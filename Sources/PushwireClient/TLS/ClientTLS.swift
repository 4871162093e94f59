#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import PushwireOpenSSL
import PushwireSystem
import Synchronization

/// TLS for one client connection over memory BIOs: OpenSSL never touches the socket. Ciphertext
/// read from the socket is fed in, plaintext comes out; plaintext to send is sealed into
/// ciphertext that the connection's single writer puts on the socket.
///
/// Why memory BIOs: the connection reads on its reader thread while callers write from theirs,
/// and an OpenSSL session must not be used by two threads at once. Every use after the handshake
/// happens under the connection's state lock (`ClientConnection.state`); only the socket I/O is
/// outside it, so a writer blocked on a full socket never keeps the reader from decrypting.
final class ClientTLS: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The shared context this session was made on; nil once `release()`d, so that the context
    /// (and its CA store) is freed when the program's last connection on it closes.
    private var context: ClientTLSContext?
    /// Implicitly unwrapped for the methods below, which run only while the connection is open:
    /// `release()` is the last use, made once the reader has exited and no write is in flight.
    private var ssl: OpaquePointer!
    /// OpenSSL reads ciphertext from here (we write into it) …
    private let input: OpaquePointer
    /// … and writes ciphertext here (we drain it).
    private let output: OpaquePointer
    /// The name verified, for messages.
    let verifiedName: String

    /// Sets up a session verifying `host` (or `options.serverName`).
    init(options: ClientTLSOptions, host: String) throws(Failure) {
        let context = try ClientTLSContext.shared(for: options)
        self.context = context
        let name = options.serverName ?? host
        verifiedName = name
        ERR_clear_error()
        guard let ssl = SSL_new(context.pointer) else { throw Failure(description: "TLS: out of memory") }
        guard let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw Failure(description: "TLS: out of memory")
        }
        self.ssl = ssl
        self.input = input
        self.output = output
        SSL_set_bio(ssl, input, output)  // the session owns both BIOs now
        SSL_set_connect_state(ssl)
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 || inet_pton(AF_INET6, name, &v6) == 1 {
            // No SNI for an address (RFC 6066); it is checked against the certificate's IP SANs.
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name)
        } else {
            guard cossl_set_sni(ssl, name) == 1, SSL_set1_host(ssl, name) == 1 else {
                SSL_free(ssl)
                throw Failure(description: "TLS: '\(name)' is not a host name")
            }
        }
    }

    deinit { release() }

    /// Frees the session and lets go of the context, once; nothing may use the session after it.
    /// Called by the connection when it closes its socket (`closeDescriptorIfDone`).
    func release() {
        guard let session = ssl else { return }
        ssl = nil
        SSL_free(session)
        context = nil
    }

    /// Runs the handshake on the blocking socket `fd` (reads bounded by the caller's SO_RCVTIMEO).
    /// - Throws: `Failure` saying why: the certificate did not verify for the name, the server
    ///   chose another protocol than `pwire/1`, or the connection broke.
    func handshake(fd: Int32, timedOut: () -> Bool) throws {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            try sendPending(fd: fd)
            if result == 1 { break }
            let error = SSL_get_error(ssl, result)
            guard error == SSL_ERROR_WANT_READ else { throw Failure(description: handshakeFailure()) }
            if timedOut() { throw Handshake.Failure(description: "TLS handshake timed out", timedOut: true) }
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try Syscall.blockingRead(fd, into: $0) }
            } catch let error as SystemError where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
                throw Handshake.Failure(description: "TLS handshake timed out", timedOut: true)
            }
            if count == 0 { throw Failure(description: "TLS: the server closed the connection during the handshake") }
            buffer.withUnsafeBytes { feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        var selected: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &length)
        if let selected, length > 0 {
            let name = String(decoding: UnsafeBufferPointer(start: selected, count: Int(length)), as: UTF8.self)
            guard name == "pwire/1" else { throw Failure(description: "TLS: the server chose the protocol '\(name)', not pwire/1") }
        }
    }

    /// Hands ciphertext read from the socket to OpenSSL.
    func feed(_ cipher: UnsafeRawBufferPointer) {
        guard ssl != nil, let base = cipher.baseAddress, !cipher.isEmpty else { return }
        _ = BIO_write(input, base, Int32(cipher.count))
    }

    /// What `open` found.
    enum Opened {
        case bytes(Int)
        /// A whole record is not in yet: read more from the socket.
        case needsInput
        /// The server sent close_notify.
        case closed
    }

    /// Decrypts what has been fed, into `buffer`.
    func open(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> Opened {
        guard ssl != nil else { return .closed }
        ERR_clear_error()
        let result = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if result > 0 { return .bytes(Int(result)) }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .needsInput
        case SSL_ERROR_ZERO_RETURN: return .closed
        default: throw Failure(description: "TLS: \(openSSLErrors())")
        }
    }

    /// Encrypts `plain` and appends the records (and anything else OpenSSL has to send) to `cipher`.
    func seal(_ plain: UnsafeRawBufferPointer, appendingTo cipher: inout [UInt8]) throws(Failure) {
        guard ssl != nil else { throw Failure(description: "TLS: the connection is closed") }
        var offset = 0
        while offset < plain.count {
            ERR_clear_error()
            let written = SSL_write(ssl, plain.baseAddress! + offset, Int32(clamping: plain.count - offset))
            guard written > 0 else { throw Failure(description: "TLS: \(openSSLErrors())") }
            offset += Int(written)
        }
        drain(appendingTo: &cipher)
    }

    /// Whether OpenSSL has ciphertext waiting to be sent (e.g. an answer it owes the server).
    var hasPendingOutput: Bool { ssl != nil && BIO_ctrl_pending(output) > 0 }

    /// Moves OpenSSL's waiting ciphertext to `cipher`.
    func drain(appendingTo cipher: inout [UInt8]) {
        guard ssl != nil else { return }
        let pending = Int(BIO_ctrl_pending(output))
        guard pending > 0 else { return }
        let start = cipher.count
        cipher.append(contentsOf: repeatElement(0, count: pending))
        let read = cipher.withUnsafeMutableBytes { BIO_read(output, $0.baseAddress! + start, Int32(pending)) }
        cipher.removeLast(pending - max(0, Int(read)))
    }

    /// Reads plaintext on the blocking socket before the connection is shared (the preface and
    /// Settings); 0 at the end of the stream.
    func readBlocking(fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var cipher = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            switch try open(into: buffer) {
            case .bytes(let count): return count
            case .closed: return 0
            case .needsInput: break
            }
            let count = try cipher.withUnsafeMutableBytes { try Syscall.blockingRead(fd, into: $0) }
            if count == 0 { return 0 }
            cipher.withUnsafeBytes { feed(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
    }

    /// Seals and sends `plain` on the blocking socket before the connection is shared.
    func sendBlocking(fd: Int32, _ plain: UnsafeRawBufferPointer) throws {
        var cipher: [UInt8] = []
        try seal(plain, appendingTo: &cipher)
        try cipher.withUnsafeBytes { try Syscall.sendAll(fd, $0) }
    }

    private func sendPending(fd: Int32) throws {
        var cipher: [UInt8] = []
        drain(appendingTo: &cipher)
        if !cipher.isEmpty { try cipher.withUnsafeBytes { try Syscall.sendAll(fd, $0) } }
    }

    private func handshakeFailure() -> String {
        let verify = SSL_get_verify_result(ssl)
        if verify != X509_V_OK {
            return "TLS: certificate verification failed for \(verifiedName): \(String(cString: X509_verify_cert_error_string(verify)))"
        }
        return "TLS handshake failed: \(openSSLErrors())"
    }
}

/// One OpenSSL client context per distinct `ClientTLSOptions`, shared by the connections open on
/// it: loading the system's CA store takes milliseconds, too much for every connection of a pool
/// or a benchmark. The cache holds it weakly, so the `SSL_CTX` is freed when the last connection
/// using it closes (a CLI that made one connection holds none by the time it exits).
final class ClientTLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    private static let cache = Mutex<[ClientTLSOptions: WeakContext]>([:])
    /// Contexts alive in the process (for tests: each closed connection gives its context back).
    static let alive = Atomic<Int>(0)

    private init(_ pointer: OpaquePointer) {
        self.pointer = pointer
        Self.alive.add(1, ordering: .relaxed)
    }

    deinit {
        SSL_CTX_free(pointer)
        Self.alive.subtract(1, ordering: .relaxed)
    }

    /// A weak cache entry; `@unchecked Sendable`: read and written only under `cache`'s lock.
    private final class WeakContext: @unchecked Sendable {
        weak var context: ClientTLSContext?
        init(_ context: ClientTLSContext) { self.context = context }
    }

    static func shared(for options: ClientTLSOptions) throws(ClientTLS.Failure) -> ClientTLSContext {
        if let made = cache.withLock({ $0[options]?.context }) { return made }
        let made = try make(options)
        return cache.withLock { cache in
            if let raced = cache[options]?.context { return raced }
            cache = cache.filter { $0.value.context != nil }
            cache[options] = WeakContext(made)
            return made
        }
    }

    private static func make(_ options: ClientTLSOptions) throws(ClientTLS.Failure) -> ClientTLSContext {
        keepOpenSSLUntilExit()
        ERR_clear_error()
        guard let pointer = SSL_CTX_new(TLS_client_method()) else { throw ClientTLS.Failure(description: "TLS: \(openSSLErrors())") }
        let context = ClientTLSContext(pointer)
        _ = cossl_set_min_tls12(pointer)
        SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, nil)
        let loaded = options.caFile.map { SSL_CTX_load_verify_locations(pointer, $0, nil) } ?? SSL_CTX_set_default_verify_paths(pointer)
        guard loaded == 1 else {
            throw ClientTLS.Failure(description: "TLS: cannot load the CA certificates \(options.caFile ?? "(system store)"): \(openSSLErrors())")
        }
        if let certificate = options.clientCertificateFile {
            guard SSL_CTX_use_certificate_chain_file(pointer, certificate) == 1,
                  SSL_CTX_use_PrivateKey_file(pointer, options.clientKeyFile ?? certificate, SSL_FILETYPE_PEM) == 1 else {
                throw ClientTLS.Failure(description: "TLS: cannot load the client certificate \(certificate): \(openSSLErrors())")
            }
        }
        let alpn: [UInt8] = [7] + Array("pwire/1".utf8)
        _ = SSL_CTX_set_alpn_protos(pointer, alpn, UInt32(alpn.count))
        return context
    }
}
