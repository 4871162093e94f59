import PushwireDelivery
import Synchronization

/// Delivers notifications to Apple's push service over HTTP/2 with token authentication.
///
/// One gateway per application and environment: it keeps up to `maxConnections` long-lived HTTP/2
/// connections, multiplexes up to `maxConcurrentStreams` requests on each, and never has more than
/// `maxInFlight` notifications outstanding — `deliver` suspends until there is room. Each connection
/// has a client and thread of its own (`APNsConnectionClient`): `NGHTTP2Client` (libnghttp2 +
/// OpenSSL, the default) or `HTTP2Client` (libcurl), as `APNsConfiguration.transport` says. Requests
/// whose connection failed or went away (GOAWAY) before APNs answered are sent again on a new
/// connection; APNs' answers become `DeliveryOutcome`s (see `APNsResponse`).
public final class APNsGateway: NotificationGateway {
    private let clients: [any APNsConnectionClient]
    /// Where the next notification goes: round robin over `clients`.
    private let nextClient = Atomic<Int>(0)
    private let window: InFlightWindow
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
        do {
            tokens = try ProviderTokenCache(credentials: credentials, refreshSeconds: configuration.clampedTokenRefreshSeconds, now: now)
        } catch {
            throw .credentials(error)
        }
        window = InFlightWindow(size: configuration.maxInFlight)
        var baseURL = configuration.baseURLOverride ?? credentials.environment.baseURL
        while baseURL.hasSuffix("/") { baseURL.removeLast() }
        var perConnection = configuration
        perConnection.maxConnections = 1
        var clients: [any APNsConnectionClient] = []
        for _ in 0..<configuration.maxConnections {
            do throws(APNsGatewayError) {
                switch configuration.transport {
                case .libcurl:
                    clients.append(try HTTP2Client(baseURL: baseURL, topic: credentials.topic, configuration: perConnection, tokens: tokens))
                case .nghttp2:
                    guard let endpoint = APNsEndpoint(baseURL: baseURL) else { throw .transport("not an https://host[:port] URL: \(baseURL)") }
                    clients.append(try NGHTTP2Client(endpoint: endpoint, profile: APNsProfile(topic: credentials.topic, tokens: tokens),
                                                     configuration: perConnection))
                }
            } catch {
                for client in clients { client.stop() }
                throw error
            }
        }
        self.clients = clients
    }

    deinit { for client in clients { client.stop() } }

    /// Delivers `batch`, suspending while the in-flight window is full, and returns one outcome per
    /// notification in the batch's order.
    ///
    /// Notifications that cannot be valid are answered without a request: a device token that is
    /// not hex → `.invalidToken("BadDeviceToken")`, a collapse id over 64 bytes or with control
    /// characters → `.failed("BadCollapseId")`.
    public func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        guard !batch.isEmpty else { return [] }
        let collector = BatchCollector(count: batch.count)
        var sendable: [Int] = []
        sendable.reserveCapacity(batch.count)
        for (index, notification) in batch.enumerated() {
            if let refusal = Self.refusal(for: notification) {
                collector.complete(index, refusal)
            } else {
                sendable.append(index)
            }
        }
        let window = self.window
        var next = 0
        while next < sendable.count {
            let granted = await window.acquire(atMost: sendable.count - next)
            let jobs = sendable[next..<next + granted].map { index in
                APNsJob(notification: batch[index], apnsID: APNsRequestID.make()) { outcome in
                    window.release()
                    collector.complete(index, outcome)
                }
            }
            next += granted
            submit(jobs)
        }
        return await collector.outcomes()
    }

    /// Spreads `jobs` over the connections' clients, round robin, one hand-over per client.
    private func submit(_ jobs: [APNsJob]) {
        guard clients.count > 1 else { return clients[0].submit(jobs) }
        // Unsigned arithmetic: the counter may wrap after 2^64 notifications without trapping.
        let first = UInt(bitPattern: nextClient.wrappingAdd(jobs.count, ordering: .relaxed).oldValue)
        var groups = Array(repeating: [APNsJob](), count: clients.count)
        for (offset, job) in jobs.enumerated() { groups[Int((first &+ UInt(offset)) % UInt(clients.count))].append(job) }
        for (client, group) in zip(clients, groups) { client.submit(group) }
    }

    /// Stops the HTTP/2 threads; notifications still in flight complete with `.retry`.
    public func shutdown() { for client in clients { client.stop() } }

    /// The most notifications that were in flight at once.
    public var peakInFlight: Int { window.peakInUse }

    /// Requests sent again because their connection failed before APNs answered.
    public var connectionRetryCount: Int { clients.reduce(0) { $0 + $1.connectionRetryCount } }

    /// Provider tokens signed so far.
    public var providerTokensSigned: Int { tokens.signedCount }

    /// Why a notification cannot be sent at all, checked before it takes a slot.
    static func refusal(for notification: OutgoingNotification) -> DeliveryOutcome? {
        let token = notification.deviceToken.utf8
        // The token goes into the request path: only hex may pass.
        guard !token.isEmpty, token.count <= 200, token.allSatisfy({ $0.isHexDigit }) else {
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
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
