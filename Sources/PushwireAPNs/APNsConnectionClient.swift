/// What `APNsGateway` needs from one HTTP/2 connection's client, whichever library speaks HTTP/2
/// underneath (`APNsTransport`): take jobs, report each job's outcome through its completion
/// (exactly once), retry requests that got no answer, and stop.
protocol APNsConnectionClient: AnyObject, Sendable {
    /// Hands jobs to the client's thread. After `stop`, they complete at once with `.retry`.
    func submit(_ jobs: [APNsJob])
    /// Stops the client's thread; jobs not yet answered complete with `.retry`.
    func stop()
    /// Requests that failed without an answer and were sent again (the service cannot have acted
    /// on them).
    var connectionRetryCount: Int { get }
    /// Requests sent whole that got no answer, given back as `.retry` (`APNsJob.perhapsDelivered`).
    var unansweredAfterSendingCount: Int { get }
}

/// The HTTP/2 implementation an `APNsGateway` sends with.
public enum APNsTransport: String, Sendable, Equatable, CaseIterable {
    /// libnghttp2 framing over an OpenSSL TLS socket, one thread per connection: per request only
    /// what HTTP/2 needs, all of a loop round's frames in one TLS write. The default.
    case nghttp2
    /// libcurl's multi interface (HTTP/2 through libcurl's own nghttp2 use), one thread per
    /// connection. Far more CPU per request than `.nghttp2` with Debian's libcurl 7.88 (docs/BENCHMARKS.md).
    case libcurl
}
