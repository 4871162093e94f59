import Synchronization

/// A gateway that accepts everything and sends nothing: for benchmarks of the fan-out itself.
public final class NullGateway: NotificationGateway {
    private let counters = Mutex<(notifications: Int, payloadBytes: Int)>((0, 0))

    /// Creates a gateway.
    public init() {}

    /// Notifications and payload bytes accepted so far.
    public var accepted: (notifications: Int, payloadBytes: Int) { counters.withLock { $0 } }

    /// Answers `.sent` for every notification.
    public func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        var bytes = 0
        for notification in batch { bytes += notification.payload.count }
        counters.withLock {
            $0.notifications += batch.count
            $0.payloadBytes += bytes
        }
        return Array(repeating: .sent(apnsID: ""), count: batch.count)
    }
}
