/// One rendered notification on its way to one device: what a gateway sends.
public struct OutgoingNotification: Sendable, Equatable {
    /// The attempt record this delivery belongs to; outcomes are reported against it.
    public var deliveryID: UInt64
    /// The code of the message it belongs to.
    public var messageCode: String
    /// The device's push token (for APNs, hex).
    public var deviceToken: String
    /// The rendered payload (JSON), at most `NotificationLimits.maxPayloadBytes` bytes.
    public var payload: [UInt8]
    /// `apns-priority`: 10 sends at once, 5 lets the device save power, 1 is the lowest.
    public var priority: Int
    /// `apns-expiration` in seconds since 1970 (from the notification's `ios_ttl`); 0 means none.
    public var expiration: Int64
    /// `apns-collapse-id`, at most 64 bytes; empty for none.
    public var collapseID: String
    /// The device's platform (Pushwoosh device type: 1 iOS, 3 Android, …): which push service
    /// carries it (`PushPlatform`), and what `payload` holds — an APNs payload, or for FCM the
    /// `message` object of an HTTP v1 send request without its `token`.
    public var deviceType: Int32
    /// `apns-push-type`: `alert`, or `background` for a silent notification.
    public var pushType: String

    /// Creates a notification.
    public init(
        deliveryID: UInt64,
        messageCode: String,
        deviceToken: String,
        payload: [UInt8],
        priority: Int = 10,
        expiration: Int64 = 0,
        collapseID: String = "",
        deviceType: Int32 = PushPlatform.iOS,
        pushType: String = "alert"
    ) {
        self.pushType = pushType
        self.deviceType = deviceType
        self.deliveryID = deliveryID
        self.messageCode = messageCode
        self.deviceToken = deviceToken
        self.payload = payload
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
    }
}

/// What became of one delivery.
public enum DeliveryOutcome: Sendable, Equatable {
    /// Accepted by the push service; `apnsID` is its `apns-id` when it has one.
    case sent(apnsID: String)
    /// The token is dead (APNs 410 `Unregistered`/`ExpiredToken`): stop sending to it until the
    /// device registers a newer one. `since` is the push service's timestamp (ms since 1970), if given.
    case deadToken(reason: String, since: Int64?)
    /// The token is not valid for this app (APNs 400 `BadDeviceToken`, `DeviceTokenNotForTopic`).
    case invalidToken(reason: String)
    /// A transient failure (429, 5xx, connection loss): try again later, after `after` if given.
    case retry(reason: String, after: Duration?)
    /// A permanent failure, counted by reason (e.g. `PayloadTooLarge`).
    case failed(reason: String)
}

/// Where rendered notifications go: the APNs gateway, the file sink, a null gateway for benchmarks.
///
/// A gateway applies backpressure by suspending `deliver` while it is saturated; the delivery
/// pipeline never queues more than it has handed over.
public protocol NotificationGateway: Sendable {
    /// Delivers a batch and reports one outcome per notification, in the batch's order.
    func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome]
}

/// Limits that come from Apple.
public enum NotificationLimits {
    /// The largest payload APNs accepts for an alert notification, in bytes.
    public static let maxPayloadBytes = 4096
    /// The longest `apns-collapse-id`, in bytes.
    public static let maxCollapseIDBytes = 64
}
