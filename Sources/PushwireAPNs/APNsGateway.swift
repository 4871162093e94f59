import PushwireDelivery

/// Delivers notifications to Apple's push service over HTTP/2 with token authentication.
///
/// One gateway per application and environment: it keeps up to `maxConnections` long-lived HTTP/2
/// connections, multiplexes up to `maxConcurrentStreams` requests on each, and never has more than
/// `maxInFlight` notifications outstanding — `deliver` suspends until there is room. Each connection
/// has a client and thread of its own (`APNsConnectionClient`): `NGHTTP2Client` (libnghttp2 +
/// OpenSSL, the default) or `HTTP2Client` (libcurl), as `APNsConfiguration.transport` says. Requests
/// APNs cannot have acted on (their connection failed before they were sent whole, or refused
/// them) are sent again on a new connection; one sent whole whose answer never came is `.retry`
/// (see `APNsRetryPolicy`); APNs' answers become `DeliveryOutcome`s (see `APNsResponse`).
public final class APNsGateway: NotificationGateway {
    private let pool: HTTP2ConnectionPool
    private let tokens: ProviderTokenCache

    /// Creates a gateway and starts its HTTP/2 threads (one per connection); connections open on the
    /// first delivery.
    /// - Throws: `APNsGatewayError.credentials` if the key does not parse, `.libcurl` if libcurl
    ///   cannot be initialised, `.transport` if the nghttp2 transport cannot be set up (a base URL
    ///   that is not `https://host[:port]`, a CA file OpenSSL cannot load).
    public convenience init(credentials: APNsCredentials, configuration: APNsConfiguration = APNsConfiguration()) throws(APNsGatewayError) {
        try self.init(credentials: credentials, configuration: configuration, now: ProviderTokenCache.systemNow)
    }

    /// As the public init, with an injectable wall clock (seconds since 1970) for the token cache.
    init(credentials: APNsCredentials, configuration: APNsConfiguration, now: @escaping @Sendable () -> Int64) throws(APNsGatewayError) {
        let tokens: ProviderTokenCache
        do {
            tokens = try ProviderTokenCache(credentials: credentials, refreshSeconds: configuration.clampedTokenRefreshSeconds, now: now)
        } catch {
            throw .credentials(error)
        }
        self.tokens = tokens
        var baseURL = configuration.baseURLOverride ?? credentials.environment.baseURL
        while baseURL.hasSuffix("/") { baseURL.removeLast() }
        var perConnection = configuration
        perConnection.maxConnections = 1
        pool = try HTTP2ConnectionPool(connections: configuration.maxConnections, maxInFlight: configuration.maxInFlight) { () throws(APNsGatewayError) -> any APNsConnectionClient in
            switch configuration.transport {
            case .libcurl:
                return try HTTP2Client(baseURL: baseURL, topic: credentials.topic, configuration: perConnection, tokens: tokens)
            case .nghttp2:
                guard let endpoint = APNsEndpoint(baseURL: baseURL) else { throw .transport("not an https://host[:port] URL: \(baseURL)") }
                return try NGHTTP2Client(endpoint: endpoint, profile: APNsProfile(topic: credentials.topic, tokens: tokens),
                                         configuration: perConnection)
            }
        }
    }

    deinit { pool.stop() }

    /// Delivers `batch`, suspending while the in-flight window is full, and returns one outcome per
    /// notification in the batch's order.
    ///
    /// Notifications that cannot be valid are answered without a request: a device token that is
    /// not hex → `.invalidToken("BadDeviceToken")`, a collapse id over 64 bytes or with control
    /// characters → `.failed("BadCollapseId")`.
    public func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        await pool.send(batch, refusal: Self.refusal(for:)) { notification, collector, index in
            APNsJob(notification: notification, apnsID: APNsRequestID.make(), batch: collector, index: index)
        }
    }

    /// Stops the HTTP/2 threads; notifications still in flight complete with `.retry`.
    public func shutdown() { pool.stop() }

    /// The most notifications that were in flight at once.
    public var peakInFlight: Int { pool.peakInFlight }

    /// Requests sent again because their connection failed before APNs answered.
    public var connectionRetryCount: Int { pool.connectionRetryCount }

    /// Requests sent whole that got no answer (connection lost, timeout), given back as `.retry`
    /// rather than sent again: APNs may have delivered them.
    public var unansweredAfterSendingCount: Int { pool.unansweredAfterSendingCount }

    /// Provider tokens signed so far.
    public var providerTokensSigned: Int { tokens.signedCount }

    /// Why a notification cannot be sent at all, checked before it takes a slot.
    static func refusal(for notification: OutgoingNotification) -> DeliveryOutcome? {
        let token = notification.deviceToken.utf8
        // The token goes into the request path: only hex may pass.
        // Over the contiguous UTF-8 when the string has it (native strings do): a plain byte loop
        // rather than the UTF8View's iterator, once per notification.
        let allHex = token.withContiguousStorageIfAvailable { $0.allSatisfy(\.isHexDigit) } ?? token.allSatisfy(\.isHexDigit)
        guard !token.isEmpty, token.count <= 200, allHex else {
            return .invalidToken(reason: "BadDeviceToken")
        }
        let collapse = notification.collapseID.utf8
        guard collapse.count <= NotificationLimits.maxCollapseIDBytes, collapse.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
            return .failed(reason: "BadCollapseId")
        }
        return nil
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        // Two unsigned range checks (wrapping subtraction; `| 0x20` folds A–F onto a–f) rather
        // than three range `contains`: this runs once per byte of every device token.
        self &- UInt8(ascii: "0") < 10 || (self | 0x20) &- UInt8(ascii: "a") < 6
    }
}
