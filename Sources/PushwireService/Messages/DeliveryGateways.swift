import PushwireDelivery
import PushwireStore

/// The gateways the delivery pipeline sends through, built by the composition root
/// (`pushwired`) and handed to `PushwireServices`: the gateway of applications without push
/// credentials (the file sink, or a `NullGateway`), and how an application's APNs and FCM
/// gateways are made from its stored settings. Those are made on first use and kept while the
/// settings do not change (`GatewayDirectory`); a maker that returns nil (a key that no longer
/// loads) makes that service's deliveries retry and then fail as `APNsGatewayUnavailable` or
/// `FCMGatewayUnavailable`.
public struct DeliveryGateways: Sendable {
    /// Where notifications of applications without push credentials go.
    public var sink: any NotificationGateway
    /// An APNs gateway for these settings, or nil when it cannot be made.
    public var makeAPNs: @Sendable (APNsSettingsRecord) -> (any NotificationGateway)?
    /// An FCM gateway for this service account (its JSON key file), or nil when it cannot be made.
    public var makeFCM: @Sendable (String) -> (any NotificationGateway)?

    /// Creates the set.
    public init(sink: any NotificationGateway, makeAPNs: @escaping @Sendable (APNsSettingsRecord) -> (any NotificationGateway)?,
                makeFCM: @escaping @Sendable (String) -> (any NotificationGateway)?) {
        self.sink = sink
        self.makeAPNs = makeAPNs
        self.makeFCM = makeFCM
    }
}
