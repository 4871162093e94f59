import PushwireAPNs
import PushwireDelivery
import PushwireStore
import Synchronization

/// Chooses each application's gateway. An application with push credentials gets a
/// `PlatformRouter`: its iOS, macOS and Safari devices go to its APNs gateway, its Android
/// devices to its FCM gateway, and a platform it has no credentials for is counted
/// `NoCredentialsForPlatform`. An application with no credentials at all writes every
/// notification to the file sink (which names each line's platform). Gateways are created on
/// first use and kept (one per application, service and settings), so their HTTP/2 connections
/// and tokens are reused across messages.
final class GatewayDirectory: Sendable {
    /// An application's gateways, each with the settings it was made from.
    private struct Cached {
        var apns: (settings: APNsSettingsRecord, gateway: any NotificationGateway)?
        var fcm: (settings: String, gateway: any NotificationGateway)?
    }

    private let sink: any NotificationGateway
    private let apns: APNsConfiguration
    private let fcm: APNsConfiguration
    private let applications: @Sendable (Int64) -> ApplicationRecord?
    private let gateways = Mutex<[Int64: Cached]>([:])

    /// - Parameters:
    ///   - sink: the gateway of applications without push credentials.
    ///   - apns: how every APNs gateway connects; its `baseURLOverride` and `caFile` come from
    ///     `pushwired --apns-url/--apns-ca-file` (a local APNs double in tests), the rest is default.
    ///   - fcm: how every FCM gateway connects (`pushwired --fcm-url/--fcm-ca-file`).
    ///   - applications: the current record of an application by internal id.
    init(sink: any NotificationGateway, apns: APNsConfiguration = APNsConfiguration(), fcm: APNsConfiguration = APNsConfiguration(),
         applications: @escaping @Sendable (Int64) -> ApplicationRecord?) {
        self.sink = sink
        self.apns = apns
        self.fcm = fcm
        self.applications = applications
    }

    /// The APNs gateways made so far, the provider tokens (JWTs) they signed and their connection
    /// retries, summed (for /metrics).
    var apnsStatistics: (gateways: Int, tokensSigned: Int, connectionRetries: Int) {
        let all = gateways.withLock { $0.values.compactMap { $0.apns?.gateway } }
        var tokens = 0, retries = 0, count = 0
        for case let gateway as APNsGateway in all {
            count += 1
            tokens += gateway.providerTokensSigned
            retries += gateway.connectionRetryCount
        }
        return (count, tokens, retries)
    }

    /// The FCM gateways made so far, the OAuth2 access tokens they were granted (each a refresh
    /// through the service account's token URI) and their connection retries, summed (for /metrics).
    var fcmStatistics: (gateways: Int, accessTokensGranted: Int, connectionRetries: Int) {
        let all = gateways.withLock { $0.values.compactMap { $0.fcm?.gateway } }
        var tokens = 0, retries = 0, count = 0
        for case let gateway as FCMGateway in all {
            count += 1
            tokens += gateway.accessTokensGranted
            retries += gateway.connectionRetryCount
        }
        return (count, tokens, retries)
    }

    /// The failure reason of deliveries whose application's APNs gateway could not be created.
    static let unavailableReason = "APNsGatewayUnavailable"
    /// The failure reason of deliveries whose application's FCM gateway could not be created.
    static let fcmUnavailableReason = "FCMGatewayUnavailable"

    func gateway(applicationID: Int64) -> any NotificationGateway {
        guard let application = applications(applicationID), application.apns != nil || application.fcmServiceAccount != nil else {
            return sink
        }
        // Looked up and created under one lock: messages fanned out at once must share one gateway
        // (one set of connections, one token), not each create their own.
        return gateways.withLock { gateways -> any NotificationGateway in
            var cached = gateways[applicationID] ?? Cached()
            var services: [PushService: any NotificationGateway] = [:]
            // Stored settings were validated by CreateApplication/UpdateApplication and the CA
            // files when pushwired started; should one fail to load now, its deliveries are
            // retried and then counted as failed for that reason (never written to the sink as
            // if sent). Such a failure is not kept, so the next batch tries again — without
            // touching the other service's gateway, which stays as it is.
            if let settings = application.apns {
                if let kept = cached.apns, kept.settings == settings {
                    services[.apns] = kept.gateway
                } else if let credentials = try? APNsCredentials(
                              teamID: settings.teamID, keyID: settings.keyID, topic: settings.topic, p8PEM: settings.privateKeyP8,
                              environment: settings.environment == 2 ? .production : .sandbox),
                          let gateway = try? APNsGateway(credentials: credentials, configuration: apns) {
                    cached.apns = (settings, gateway)
                    services[.apns] = gateway
                } else {
                    cached.apns = nil
                    services[.apns] = UnavailableGateway(reason: Self.unavailableReason)
                }
            } else {
                cached.apns = nil
            }
            if let json = application.fcmServiceAccount {
                if let kept = cached.fcm, kept.settings == json {
                    services[.fcm] = kept.gateway
                } else if let account = try? FCMServiceAccount(json: json), let gateway = try? FCMGateway(account: account, configuration: fcm) {
                    cached.fcm = (json, gateway)
                    services[.fcm] = gateway
                } else {
                    cached.fcm = nil
                    services[.fcm] = UnavailableGateway(reason: Self.fcmUnavailableReason)
                }
            } else {
                cached.fcm = nil
            }
            gateways[applicationID] = cached
            return PlatformRouter(gateways: services)
        }
    }
}
