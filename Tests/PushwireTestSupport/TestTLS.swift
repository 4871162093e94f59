#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import PushwireOpenSSL
import Foundation

/// The throw-away CA of Scripts/tls/make-test-ca, made once per test process, and a small
/// blocking TLS client for `TestClient`.
public enum TestTLS {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The directory holding ca.pem, server.pem/.key, wrong-host.*, client.*, untrusted.*.
    public static let directory: String = {
        let directory = NSTemporaryDirectory() + "pushwire-runtime-tls-\(getpid())"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/tls/make-test-ca").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = [directory]
        try? process.run()
        process.waitUntilExit()
        return directory
    }()

    public static func path(_ name: String) -> String { directory + "/" + name }

    /// How a test client does its handshake.
    public struct Client {
        /// ALPN protocols offered; empty: no ALPN extension.
        public var alpn: [String] = ["pwire/1"]
        /// The name verified in the certificate (and sent as SNI); an IP literal is checked as one.
        public var serverName = "127.0.0.1"
        /// Verify against the test CA (false: accept anything, for tests about the server's choices).
        public var verify = true
        /// e.g. TLS1_1_VERSION, to offer nothing newer.
        public var maxVersion: Int32 = 0
        /// Present client.pem.
        public var clientCertificate = false

        /// Runs the handshake on the blocking socket `fd`; returns the session.
        public init(alpn: [String] = ["pwire/1"], serverName: String = "127.0.0.1", verify: Bool = true, maxVersion: Int32 = 0,
                    clientCertificate: Bool = false) {
            self.alpn = alpn
            self.serverName = serverName
            self.verify = verify
            self.maxVersion = maxVersion
            self.clientCertificate = clientCertificate
        }

        public func handshake(fd: Int32) throws -> OpaquePointer {
            guard let context = SSL_CTX_new(TLS_client_method()) else { throw Failure(description: "SSL_CTX_new") }
            defer { SSL_CTX_free(context) }
            if maxVersion != 0 {
                // OpenSSL's default security level refuses TLS 1.1 on the client side already.
                SSL_CTX_set_security_level(context, 0)
                _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, 0x0301, nil)
                _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(maxVersion), nil)
                _ = SSL_CTX_set_cipher_list(context, "DEFAULT:@SECLEVEL=0")
            }
            if verify {
                SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
                SSL_CTX_load_verify_locations(context, TestTLS.path("ca.pem"), nil)
            }
            if !alpn.isEmpty {
                var wire: [UInt8] = []
                for name in alpn { wire.append(UInt8(name.utf8.count)); wire += Array(name.utf8) }
                _ = SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count))
            }
            if clientCertificate {
                SSL_CTX_use_certificate_chain_file(context, TestTLS.path("client.pem"))
                SSL_CTX_use_PrivateKey_file(context, TestTLS.path("client.key"), SSL_FILETYPE_PEM)
            }
            guard let ssl = SSL_new(context) else { throw Failure(description: "SSL_new") }
            SSL_set_fd(ssl, fd)
            if verify {
                if serverName.first?.isNumber == true || serverName.contains(":") {
                    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
                } else {
                    _ = cossl_set_sni(ssl, serverName)
                    SSL_set1_host(ssl, serverName)
                }
            }
            // Bounded: a server that never answers fails the test instead of hanging it.
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            ERR_clear_error()
            let result = SSL_connect(ssl)
            timeout = timeval(tv_sec: 0, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard result == 1 else {
                let reason = openSSLErrors()
                SSL_free(ssl)
                throw Failure(description: "TLS handshake failed: \(reason)")
            }
            return ssl
        }
    }
}
