/// How an `APNsGateway` connects, how much it sends at once, and how it retries.
public struct APNsConfiguration: Sendable, Equatable {
    /// Replaces the environment's base URL (e.g. `https://127.0.0.1:8443` for a local double).
    public var baseURLOverride: String?
    /// A PEM file of CA certificates to trust instead of the system's. Verification is never off.
    public var caFile: String?
    /// The most HTTP/2 connections to APNs; Apple recommends few long-lived ones.
    public var maxConnections: Int
    /// The most concurrent streams per connection; the server's SETTINGS may lower it further.
    public var maxConcurrentStreams: Int
    /// The most notifications in flight at once (sent or waiting for a connection). `deliver`
    /// suspends while this many are outstanding. Defaults to connections × streams.
    public var maxInFlight: Int
    /// How long one HTTP request may take, connection included.
    public var requestTimeout: Duration
    /// How long establishing a connection may take.
    public var connectTimeout: Duration
    /// Retries of requests that failed because the connection failed or went away.
    public var retryPolicy: APNsRetryPolicy
    /// The age at which the provider token (JWT) is replaced; clamped to 20–50 minutes, since
    /// APNs rejects tokens older than an hour and refreshes more often than every 20 minutes.
    public var tokenRefreshAge: Duration
    /// Which HTTP/2 implementation sends the requests (see `APNsTransport`).
    public var transport: APNsTransport

    /// Creates a configuration; every parameter has a production default.
    public init(
        baseURLOverride: String? = nil,
        caFile: String? = nil,
        maxConnections: Int = 2,
        maxConcurrentStreams: Int = 100,
        maxInFlight: Int? = nil,
        requestTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(10),
        retryPolicy: APNsRetryPolicy = APNsRetryPolicy(),
        tokenRefreshAge: Duration = .seconds(40 * 60),
        transport: APNsTransport = .nghttp2
    ) {
        self.baseURLOverride = baseURLOverride
        self.caFile = caFile
        self.maxConnections = max(1, maxConnections)
        self.maxConcurrentStreams = max(1, maxConcurrentStreams)
        self.maxInFlight = max(1, maxInFlight ?? self.maxConnections * self.maxConcurrentStreams)
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.retryPolicy = retryPolicy
        self.tokenRefreshAge = tokenRefreshAge
        self.transport = transport
    }

    /// `tokenRefreshAge` clamped to what APNs tolerates, in seconds.
    var clampedTokenRefreshSeconds: Int64 {
        min(max(tokenRefreshAge.components.seconds, ProviderTokenCache.minimumRefreshSeconds), 50 * 60)
    }
}

/// How often and how patiently a request is retried after a connection failure.
///
/// Only requests APNs cannot have acted on are retried here (the connection refused or failed
/// before all of the request was sent, the stream refused, above the last stream id of APNs'
/// GOAWAY); one sent whole that got no answer (the connection lost, a timeout) may have been
/// delivered and goes back as `.retry` at once (`APNsJob.perhapsDelivered`), as APNs' own answers
/// (429, 5xx) do: the delivery pipeline owns the per-message retry limit.
public struct APNsRetryPolicy: Sendable, Equatable {
    /// Attempts per notification, the first included, before it is reported as `.retry`.
    public var maxAttempts: Int
    /// The delay before the first retry; it doubles on each further one.
    public var initialBackoff: Duration
    /// The longest delay between attempts.
    public var maxBackoff: Duration

    /// Creates a policy.
    public init(maxAttempts: Int = 8, initialBackoff: Duration = .milliseconds(50), maxBackoff: Duration = .seconds(2)) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
    }

    /// The delay before attempt `attempt + 1` (`attempt` ≥ 1): exponential with full jitter
    /// between half and all of it, so a reconnecting fleet does not retry in lockstep.
    func backoff(afterAttempt attempt: Int) -> Duration {
        var delay = initialBackoff
        for _ in 1..<max(1, attempt) where delay < maxBackoff { delay *= 2 }
        delay = min(delay, maxBackoff)
        return delay * Double.random(in: 0.5...1.0)
    }
}
