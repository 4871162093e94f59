import PushwireTestSupport
@testable import PushwireRuntime

extension TestTLS {
    /// A server context on the test CA's `certificate` pair (server: 127.0.0.1, ::1, localhost).
    static func serverContext(_ certificate: String = "server", clientCA: Bool = false,
                              handshakeTimeout: Duration = .seconds(10)) throws -> TLSServerContext {
        try TLSServerContext(certificateFile: path("\(certificate).pem"), keyFile: path("\(certificate).key"),
                             clientCAFile: clientCA ? path("ca.pem") : nil, handshakeTimeout: handshakeTimeout)
    }

}
