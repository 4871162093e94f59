import PushwireDelivery
import Synchronization

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

    private let clients: [NGHTTP2Client]
    private let nextClient = Atomic<Int>(0)
    private let window: InFlightWindow
    private let tokens: OAuth2TokenCache

    /// Creates a gateway and starts its HTTP/2 threads; connections open on the first delivery.
    /// - Parameters:
    ///   - account: the application's service account.
    ///   - configuration: connections, streams and retries as for APNs; `baseURLOverride`
    ///     replaces FCM's URL (`pushwired --fcm-url`), `caFile` is trusted instead of the system's
    ///     store for FCM and for the account's token URI alike.
    /// - Throws: `.credentials`-like `.transport` errors when the key or the URL is unusable.
    public init(account: FCMServiceAccount, configuration: APNsConfiguration = APNsConfiguration()) throws(APNsGatewayError) {
        do {
            tokens = try OAuth2TokenCache(account: account, caFile: configuration.caFile)
        } catch {
            throw .transport(error.description)
        }
        window = InFlightWindow(size: configuration.maxInFlight)
        var baseURL = configuration.baseURLOverride ?? Self.defaultBaseURL
        while baseURL.hasSuffix("/") { baseURL.removeLast() }
        guard let endpoint = APNsEndpoint(baseURL: baseURL) else { throw .transport("not an https://host[:port] URL: \(baseURL)") }
        var perConnection = configuration
        perConnection.maxConnections = 1
        let profile = FCMProfile(projectID: account.projectID, tokens: tokens)
        var clients: [NGHTTP2Client] = []
        for _ in 0..<configuration.maxConnections {
            do throws(APNsGatewayError) {
                clients.append(try NGHTTP2Client(endpoint: endpoint, profile: profile, configuration: perConnection))
            } catch {
                for client in clients { client.stop() }
                throw error
            }
        }
        self.clients = clients
    }

    deinit { for client in clients { client.stop() } }

    /// Delivers `batch`, suspending while the in-flight window is full; one outcome per
    /// notification, in order. A token that cannot be an FCM registration token (empty, too
    /// long, characters FCM never uses) is answered `.invalidToken("INVALID_ARGUMENT")` without
    /// a request.
    public func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        guard !batch.isEmpty else { return [] }
        let collector = BatchCollector(count: batch.count)
        var sendable: [Int] = []
        sendable.reserveCapacity(batch.count)
        for (index, notification) in batch.enumerated() {
            if Self.isUsableToken(notification.deviceToken) {
                sendable.append(index)
            } else {
                collector.complete(index, .invalidToken(reason: "INVALID_ARGUMENT"))
            }
        }
        var next = 0
        let window = self.window
        while next < sendable.count {
            let granted = await window.acquire(atMost: sendable.count - next)
            let jobs = sendable[next..<next + granted].map { index in
                var request = batch[index]
                request.payload = Self.requestBody(request)
                return APNsJob(notification: request, apnsID: "") { outcome in
                    window.release()
                    collector.complete(index, outcome)
                }
            }
            next += granted
            submit(jobs)
        }
        return await collector.outcomes()
    }

    private func submit(_ jobs: [APNsJob]) {
        guard clients.count > 1 else { return clients[0].submit(jobs) }
        let first = UInt(bitPattern: nextClient.wrappingAdd(jobs.count, ordering: .relaxed).oldValue)
        var groups = Array(repeating: [APNsJob](), count: clients.count)
        for (offset, job) in jobs.enumerated() { groups[Int((first &+ UInt(offset)) % UInt(clients.count))].append(job) }
        for (client, group) in zip(clients, groups) { client.submit(group) }
    }

    /// Stops the HTTP/2 threads; notifications still in flight complete with `.retry`.
    public func shutdown() { for client in clients { client.stop() } }

    /// Access tokens granted so far.
    public var accessTokensGranted: Int { tokens.grantedCount }

    /// Requests sent again because their connection failed before FCM answered.
    public var connectionRetryCount: Int { clients.reduce(0) { $0 + $1.connectionRetryCount } }

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
