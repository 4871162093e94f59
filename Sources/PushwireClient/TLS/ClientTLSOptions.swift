/// How a client connects over TLS (docs/PROTOCOL.md, TLS): whom it trusts, which name it checks,
/// and the certificate it presents when the server asks for one. Verification is never off.
public struct ClientTLSOptions: Sendable, Hashable {
    /// PEM CA certificates to trust instead of the system's store; nil: the system's.
    public var caFile: String?
    /// The name the server's certificate must carry (and the SNI sent); nil: the host dialled.
    /// An IP address is checked against the certificate's IP addresses and sent as no SNI.
    public var serverName: String?
    /// A PEM client certificate chain, and its key, presented when the server asks (a server
    /// started with `--tls-client-ca` needs one for the Admin service).
    public var clientCertificateFile: String?
    public var clientKeyFile: String?

    /// Trust `caFile` (or the system), verify `serverName` (or the host dialled).
    public init(caFile: String? = nil, serverName: String? = nil, clientCertificateFile: String? = nil, clientKeyFile: String? = nil) {
        self.caFile = caFile
        self.serverName = serverName
        self.clientCertificateFile = clientCertificateFile
        self.clientKeyFile = clientKeyFile
    }

    /// Splits a target into its address and whether it asks for TLS: `pwires://host:port` does,
    /// `pwire://host:port` and a bare `host:port` do not.
    public static func target(_ text: String) -> (address: String, tls: Bool) {
        if text.hasPrefix("pwires://") { return (String(text.dropFirst("pwires://".count)).trimmingTrailingSlash, true) }
        if text.hasPrefix("pwire://") { return (String(text.dropFirst("pwire://".count)).trimmingTrailingSlash, false) }
        return (text, false)
    }
}

extension String {
    fileprivate var trimmingTrailingSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
