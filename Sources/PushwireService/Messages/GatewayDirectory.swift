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
    private let makeAPNs: @Sendable (APNsSettingsRecord) -> (any NotificationGateway)?
    private let makeFCM: @Sendable (String) -> (any NotificationGateway)?
    private let applications: @Sendable (Int64) -> ApplicationRecord?
    private let gateways = Mutex<[Int64: Cached]>([:])

    /// - Parameters:
    ///   - gateways: the sink of applications without push credentials, and how their APNs and
    ///     FCM gateways are made (`pushwired` builds them: `Sources/Pushwired/Gateways.swift`).
    ///   - applications: the current record of an application by internal id.
    init(_ gateways: DeliveryGateways, applications: @escaping @Sendable (Int64) -> ApplicationRecord?) {
        self.sink = gateways.sink
        self.makeAPNs = gateways.makeAPNs
        self.makeFCM = gateways.makeFCM
        self.applications = applications
    }

    /// One service's gateways for /metrics, summed over the applications that have one.
    struct Statistics: Sendable, Equatable {
        /// Gateways made so far.
        var gateways = 0
        /// Tokens they made: APNs provider tokens (JWTs) signed, FCM access tokens granted (each a
        /// grant through the service account's token URI).
        var tokens = 0
        /// FCM access-token grants that failed (each tried again after a backoff); 0 for APNs.
        var tokenFailures = 0
        /// Requests sent again after their connection failed before the service could act on them.
        var connectionRetries = 0
        /// Requests sent whole that got no answer, given back as `.retry` (perhaps delivered).
        var unansweredAfterSending = 0
    }

    /// The APNs gateways' figures.
    var apnsStatistics: Statistics { statistics { $0.apns?.gateway } }

    /// The FCM gateways' figures.
    var fcmStatistics: Statistics { statistics { $0.fcm?.gateway } }

    private func statistics(of service: (Cached) -> (any NotificationGateway)?) -> Statistics {
        let all = gateways.withLock { $0.values.compactMap(service) }
        var figures = Statistics()
        // An UnavailableGateway is never cached; anything else here is a push service's gateway.
        for case let gateway as any PushServiceGatewayFigures in all {
            figures.gateways += 1
            figures.tokens += gateway.tokensMade
            figures.tokenFailures += gateway.tokenFailures
            figures.connectionRetries += gateway.connectionRetryCount
            figures.unansweredAfterSending += gateway.unansweredAfterSendingCount
        }
        return figures
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
            services[.apns] = Self.resolve(application.apns, kept: &cached.apns, unavailable: Self.unavailableReason, make: makeAPNs)
            services[.fcm] = Self.resolve(application.fcmServiceAccount, kept: &cached.fcm, unavailable: Self.fcmUnavailableReason,
                                          make: makeFCM)
            gateways[applicationID] = cached
            return PlatformRouter(gateways: services)
        }
    }

    /// One service's gateway of an application whose settings for it are `settings` (nil: none):
    /// the kept one while the settings are unchanged, else one made from them with `make` and kept,
    /// else (it cannot be made) an `UnavailableGateway` answering `unavailable`, not kept.
    private static func resolve<Settings: Equatable>(
        _ settings: Settings?, kept: inout (settings: Settings, gateway: any NotificationGateway)?, unavailable: String,
        make: (Settings) -> (any NotificationGateway)?) -> (any NotificationGateway)? {
        guard let settings else {
            kept = nil
            return nil
        }
        if let kept, kept.settings == settings { return kept.gateway }
        guard let made = make(settings) else {
            kept = nil
            return UnavailableGateway(reason: unavailable)
        }
        kept = (settings, made)
        return made
    }
}
