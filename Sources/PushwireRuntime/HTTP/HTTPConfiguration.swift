/// The HTTP door's address and limits (`pushwired --http-listen`). Each limit has a clear
/// outcome for the client, documented on its property.
public struct HTTPConfiguration: Sendable {
    /// Where to listen, e.g. `127.0.0.1:7356`; port 0 picks a free port. TLS (ALPN `http/1.1`)
    /// on the RPC port's certificate when the server has one (`ServerConfiguration.tls`).
    public var listen: SocketAddress
    /// A second HTTP listener in clear text beside a TLS `listen` (for loopback tools or a
    /// private network); ignored when the server has no certificate. nil: none.
    public var plaintextListen: SocketAddress? = nil
    /// The largest request body accepted; a longer one is answered 413 and the connection closed
    /// (refused from its Content-Length before the body is read, when it has one).
    public var maxBodyBytes: Int
    /// The most bytes of request line and header fields; more is answered 431 (414 for a target
    /// alone longer than this) and the connection closed.
    public var maxHeaderBytes: Int
    /// The most header fields in one request; more is answered 431 and the connection closed.
    public var maxHeaderCount: Int
    /// Requests read ahead of their answers on one connection (pipelining); at this many, the
    /// door stops reading that connection until answers go out.
    public var maxPipelinedRequests: Int
    /// A request whose first byte arrived must be complete (headers and body) within this time,
    /// or it is answered 408 and the connection closed (slow clients, slowloris).
    public var requestTimeout: Duration
    /// A keep-alive connection with no request in progress or unanswered for this long is closed.
    public var idleTimeout: Duration
    /// Open HTTP connections across the server; extra connections are accepted and closed at once.
    public var maxConnections: Int

    /// The defaults: 4 MiB bodies, 16 KiB of headers in at most 100 fields, 64 pipelined
    /// requests, 10 s per request, 60 s idle, 10,000 connections.
    public init(
        listen: SocketAddress,
        maxBodyBytes: Int = 4 * 1024 * 1024,
        maxHeaderBytes: Int = 16 * 1024,
        maxHeaderCount: Int = 100,
        maxPipelinedRequests: Int = 64,
        requestTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        maxConnections: Int = 10_000
    ) {
        self.listen = listen
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxPipelinedRequests = maxPipelinedRequests
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }

    /// `127.0.0.1:7356`, pushwired's default.
    public static let defaultListenAddress: SocketAddress = {
        // A literal that always parses; the fallback only satisfies the type checker.
        (try? SocketAddress(parsing: "127.0.0.1:7356")) ?? SocketAddress.loopbackFallback
    }()
}
