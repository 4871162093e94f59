#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import PushwireOpenSSL
import Synchronization

/// Why a server certificate, key or client CA could not be loaded: the file and OpenSSL's reason.
public struct TLSSetupError: Error, Sendable, CustomStringConvertible {
    /// e.g. `cannot load the certificate chain /etc/pushwire/fullchain.pem: … no start line`.
    public var description: String
}

/// The TLS side of a pushwired listener: the certificate chain and key it proves its name with,
/// and optionally the CA its clients' certificates must lead to.
///
/// One OpenSSL `SSL_CTX` at a time is current; `reload()` builds a new one from the same files
/// and swaps it in only if it loaded, so a bad pair leaves the old one serving. Connections take
/// the current context when they are accepted (`SSL_new` holds its own reference), so a reload
/// never touches a connection already open.
public final class TLSServerContext: Sendable {
    /// The PEM chain (leaf first, then intermediates: what an ACME client calls `fullchain.pem`).
    public let certificateFile: String
    /// The PEM private key of the leaf.
    public let keyFile: String
    /// PEM CA certificates a client certificate must lead to (`--tls-client-ca`); nil: none is asked for.
    public let clientCAFile: String?
    /// How long a connection may take to complete its handshake before it is closed.
    public let handshakeTimeout: Duration
    private let current: Mutex<ContextBox>

    /// Loads the pair (and the client CA) once.
    /// - Throws: `TLSSetupError` naming the file that did not load, or a key that does not match the certificate.
    public init(certificateFile: String, keyFile: String, clientCAFile: String? = nil,
                handshakeTimeout: Duration = .seconds(10)) throws(TLSSetupError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.clientCAFile = clientCAFile
        self.handshakeTimeout = handshakeTimeout
        // OpenSSL writes the socket with write(2), not send(MSG_NOSIGNAL): a peer that has gone
        // (a client closing right after its handshake, while the session tickets are sent) would
        // raise SIGPIPE and end the whole process. A TLS server ignores it and gets EPIPE.
        signal(SIGPIPE, SIG_IGN)
        current = Mutex(try Self.load(certificateFile: certificateFile, keyFile: keyFile, clientCAFile: clientCAFile))
    }

    /// Whether clients are asked for a certificate (`clientCAFile` given).
    public var asksForClientCertificates: Bool { clientCAFile != nil }

    /// Reads the files again; on success new handshakes use the new pair, on failure the old one
    /// stays and the error says why. Any thread.
    public func reload() throws(TLSSetupError) {
        let fresh = try Self.load(certificateFile: certificateFile, keyFile: keyFile, clientCAFile: clientCAFile)
        current.withLock { $0 = fresh }
    }

    /// A new server-side session on the current context, or nil when OpenSSL has no memory for one.
    func makeSession() -> OpaquePointer? {
        current.withLock { box in SSL_new(box.context) }
    }

    private static func load(certificateFile: String, keyFile: String, clientCAFile: String?) throws(TLSSetupError) -> ContextBox {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSSetupError(description: "cannot make a TLS context: \(openSSLErrors())") }
        let box = ContextBox(context)
        guard cossl_configure_server(context) == 1 else { throw TLSSetupError(description: "cannot configure TLS: \(openSSLErrors())") }
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            throw TLSSetupError(description: "cannot load the certificate chain \(certificateFile): \(openSSLErrors())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSSetupError(description: "cannot load the private key \(keyFile): \(openSSLErrors())")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSSetupError(description: "the private key \(keyFile) does not match the certificate \(certificateFile): \(openSSLErrors())")
        }
        if let clientCAFile {
            guard SSL_CTX_load_verify_locations(context, clientCAFile, nil) == 1,
                  let names = SSL_load_client_CA_file(clientCAFile) else {
                throw TLSSetupError(description: "cannot load the client CA file \(clientCAFile): \(openSSLErrors())")
            }
            SSL_CTX_set_client_CA_list(context, names)
            // Asked for, not required: a client without one still reaches the methods that need
            // none; the admin methods check `RequestContext.clientCertificateVerified`.
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        }
        return box
    }
}

/// Owns one `SSL_CTX` reference; freed when no longer current (sessions hold their own).
private final class ContextBox: @unchecked Sendable {
    let context: OpaquePointer

    init(_ context: OpaquePointer) { self.context = context }

    deinit { SSL_CTX_free(context) }
}
