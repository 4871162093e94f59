import PushwireAPNs
import PushwireDelivery
import PushwireStore
import Synchronization

/// Chooses each application's gateway: the APNs gateway when it has APNs settings, else the file
/// sink. APNs gateways are created on first use and kept (one per application and settings), so
/// their HTTP/2 connections and provider token are reused across messages.
final class GatewayDirectory: Sendable {
    private let sink: any NotificationGateway
    private let apns: APNsConfiguration
    private let applications: @Sendable (Int64) -> ApplicationRecord?
    private let gateways = Mutex<[Int64: (settings: APNsSettingsRecord, gateway: any NotificationGateway)]>([:])

    /// - Parameters:
    ///   - sink: the gateway of applications without APNs settings.
    ///   - apns: how every APNs gateway connects; its `baseURLOverride` and `caFile` come from
    ///     `pushwired --apns-url/--apns-ca-file` (a local APNs double in tests), the rest is default.
    ///   - applications: the current record of an application by internal id.
    init(sink: any NotificationGateway, apns: APNsConfiguration = APNsConfiguration(),
         applications: @escaping @Sendable (Int64) -> ApplicationRecord?) {
        self.sink = sink
        self.apns = apns
        self.applications = applications
    }

    /// The failure reason of deliveries whose application's APNs gateway could not be created.
    static let unavailableReason = "APNsGatewayUnavailable"

    func gateway(applicationID: Int64) -> any NotificationGateway {
        guard let settings = applications(applicationID)?.apns else { return sink }
        // Looked up and created under one lock: messages fanned out at once must share one gateway
        // (one set of connections, one provider token), not each create their own.
        return gateways.withLock { gateways -> any NotificationGateway in
            if let cached = gateways[applicationID], cached.settings == settings { return cached.gateway }
            // Stored settings were validated by UpdateApplication/CreateApplication and the CA file
            // when pushwired started; should either fail to load now, the deliveries are retried and
            // then counted as failed for this reason (never written to the sink as if sent). The
            // failure is not kept, so the next batch tries to create the gateway again.
            guard let credentials = try? APNsCredentials(
                      teamID: settings.teamID, keyID: settings.keyID, topic: settings.topic, p8PEM: settings.privateKeyP8,
                      environment: settings.environment == 2 ? .production : .sandbox),
                  let gateway = try? APNsGateway(credentials: credentials, configuration: apns)
            else { return UnavailableGateway(reason: Self.unavailableReason) }
            gateways[applicationID] = (settings, gateway)
            return gateway
        }
    }
}
