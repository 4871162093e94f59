import PushwireDelivery

/// Delivers notifications to Android devices through Firebase Cloud Messaging's HTTP v1 API.
///
/// One gateway per application (service account): up to `maxConnections` long-lived HTTP/2
/// connections to FCM, up to `maxConcurrentStreams` requests on each, at most `maxInFlight`
/// notifications outstanding — the same nghttp2 transport as `APNsGateway` (`NGHTTP2Client`),
/// with FCM's requests and answers (`FCMProfile`, `FCMResponse`) and an OAuth2 access token from
/// the service account (`OAuth2TokenCache`) as the bearer. Each request is
/// `POST /v1/projects/<project>/messages:send` with `{"message":{"token":…,<the rendered
/// message>}}`: the notification's payload is the `message` object without its token.
public final class FCMGateway: NotificationGateway {
    /// FCM's base URL.
    public static let defaultBaseURL = "https://fcm.googleapis.com"
    /// The longest device token passed on (FCM's are about 160 bytes).
    static let maxTokenBytes = 4096

    private let pool: HTTP2ConnectionPool
    private let tokens: OAuth2TokenCache

    /// Creates a gateway and starts its HTTP/2 threads; connections open on the first delivery.
    /// - Parameters:
    ///   - account: the application's service account.
    ///   - configuration: connections, streams and retries as for APNs; `baseURLOverride`
    ///     replaces FCM's URL (`pushwired --fcm-url`), `caFile` is trusted instead of the system's
    ///     store for FCM and for the account's token URI alike.
    /// - Throws: `.credentials`-like `.transport` errors when the key or the URL is unusable.
    public convenience init(account: FCMServiceAccount, configuration: APNsConfiguration = APNsConfiguration()) throws(APNsGatewayError) {
        let tokens: OAuth2TokenCache
        do {
            tokens = try OAuth2TokenCache(account: account, caFile: configuration.caFile)
        } catch {
            throw .transport(error.description)
        }
        try self.init(account: account, configuration: configuration, tokens: tokens)
    }

    /// As the public init, with the token cache given (tests inject its grant and clock).
    init(account: FCMServiceAccount, configuration: APNsConfiguration, tokens: OAuth2TokenCache) throws(APNsGatewayError) {
        self.tokens = tokens
        var baseURL = configuration.baseURLOverride ?? Self.defaultBaseURL
        while baseURL.hasSuffix("/") { baseURL.removeLast() }
        guard let endpoint = APNsEndpoint(baseURL: baseURL) else { throw .transport("not an https://host[:port] URL: \(baseURL)") }
        var perConnection = configuration
        perConnection.maxConnections = 1
        let profile = FCMProfile(projectID: account.projectID, tokens: tokens)
        pool = try HTTP2ConnectionPool(connections: configuration.maxConnections, maxInFlight: configuration.maxInFlight) { () throws(APNsGatewayError) -> any APNsConnectionClient in
            try NGHTTP2Client(endpoint: endpoint, profile: profile, configuration: perConnection)
        }
    }

    deinit { pool.stop() }

    /// Delivers `batch`, suspending while the in-flight window is full; one outcome per
    /// notification, in order. A token that cannot be an FCM registration token (empty, too
    /// long, characters FCM never uses) is answered `.invalidToken("INVALID_ARGUMENT")` without
    /// a request.
    public func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        await pool.send(batch, refusal: { Self.isUsableToken($0.deviceToken) ? nil : .invalidToken(reason: "INVALID_ARGUMENT") }) { notification, collector, index in
            var request = notification
            request.payload = Self.requestBody(notification)
            return APNsJob(notification: request, apnsID: "", batch: collector, index: index)
        }
    }

    /// Stops the HTTP/2 threads; notifications still in flight complete with `.retry`.
    public func shutdown() { pool.stop() }

    /// Access tokens granted so far.
    public var accessTokensGranted: Int { tokens.grantedCount }

    /// Access-token grants that failed so far (each is tried again after a backoff).
    public var accessTokenGrantFailures: Int { tokens.grantFailureCount }

    /// Requests sent again because their connection failed before FCM could act on them.
    public var connectionRetryCount: Int { pool.connectionRetryCount }

    /// Requests sent whole that got no answer (connection lost, timeout), given back as `.retry`
    /// rather than sent again: FCM may have delivered them.
    public var unansweredAfterSendingCount: Int { pool.unansweredAfterSendingCount }

    /// `{"message":{"token":"<token>",<the payload's members>}}`.
    static func requestBody(_ notification: OutgoingNotification) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(notification.payload.count + notification.deviceToken.utf8.count + 32)
        body.append(contentsOf: #"{"message":{"token":""#.utf8)
        body.append(contentsOf: notification.deviceToken.utf8)  // checked: no character needs escaping
        body.append(UInt8(ascii: "\""))
        let members = notification.payload.dropFirst()  // the payload is an object: `{…}`
        if members.count > 1 {
            body.append(UInt8(ascii: ","))
            body.append(contentsOf: members)
        } else {
            body.append(UInt8(ascii: "}"))
        }
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// FCM registration tokens are URL-safe base64 with `:`, `-`, `_` (and `.` in older ones).
    static func isUsableToken(_ token: String) -> Bool {
        let bytes = token.utf8
        return !bytes.isEmpty && bytes.count <= maxTokenBytes && bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }
}
