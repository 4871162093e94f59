/// Stands in for a gateway that could not be created (an application's APNs key or the server's
/// CA file no longer loads): every notification is answered `.retry` with `reason`, so the
/// pipeline tries again with backoff — a gateway created meanwhile takes over — and, past its
/// retry limit, counts the deliveries as failed for that reason, where `GetMessageDetails` shows
/// them. Nothing is reported sent that was not.
public struct UnavailableGateway: NotificationGateway {
    /// Why the real gateway is missing, as counted among a message's failures.
    public let reason: String

    /// Creates a gateway that answers every notification with `.retry(reason:after:)`.
    public init(reason: String) {
        self.reason = reason
    }

    /// Answers `.retry` for every notification.
    public func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        Array(repeating: .retry(reason: reason, after: nil), count: batch.count)
    }
}
