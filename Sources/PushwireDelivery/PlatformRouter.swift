/// An application's gateway when it has credentials for at least one push service: each
/// notification goes to the gateway of its device's platform (`PushPlatform.service`), the
/// services' parts of a batch at once, and the outcomes come back in the batch's order.
///
/// A notification whose service has no gateway here (the application has no credentials for it)
/// is answered `.failed(NoCredentialsForPlatform)`, one whose platform has no service
/// `.failed(UnsupportedPlatform)`: counted among the message's failures, never sent through
/// another platform's service, and the device is not marked (it is targeted again once the
/// credentials are added).
public struct PlatformRouter: NotificationGateway {
    /// The gateway per service; a service missing here has no credentials.
    public let gateways: [PushService: any NotificationGateway]

    /// Creates a router over the given services' gateways.
    public init(gateways: [PushService: any NotificationGateway]) {
        self.gateways = gateways
    }

    /// Splits `batch` by service, delivers the parts concurrently and merges the outcomes.
    public func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        var outcomes = [DeliveryOutcome](repeating: .failed(reason: PushPlatform.unsupportedReason), count: batch.count)
        var parts: [PushService: (indices: [Int], notifications: [OutgoingNotification])] = [:]
        for (index, notification) in batch.enumerated() {
            guard let service = PushPlatform.service(deviceType: notification.deviceType) else { continue }
            guard gateways[service] != nil else {
                outcomes[index] = .failed(reason: PushPlatform.noCredentialsReason)
                continue
            }
            parts[service, default: ([], [])].indices.append(index)
            parts[service, default: ([], [])].notifications.append(notification)
        }
        if parts.count == 1, let (service, part) = parts.first, let gateway = gateways[service] {
            // One platform (the usual batch): no child task.
            let delivered = await gateway.deliver(part.notifications)
            Self.merge(delivered, into: &outcomes, at: part.indices)
            return outcomes
        }
        await withTaskGroup(of: ([Int], [DeliveryOutcome]).self) { tasks in
            for (service, part) in parts {
                guard let gateway = gateways[service] else { continue }
                tasks.addTask { (part.indices, await gateway.deliver(part.notifications)) }
            }
            for await (indices, delivered) in tasks { Self.merge(delivered, into: &outcomes, at: indices) }
        }
        return outcomes
    }

    /// Puts a part's outcomes back at its notifications' places; a gateway that answered short
    /// leaves the rest transient.
    private static func merge(_ delivered: [DeliveryOutcome], into outcomes: inout [DeliveryOutcome], at indices: [Int]) {
        for (position, index) in indices.enumerated() {
            outcomes[index] = position < delivered.count ? delivered[position] : .retry(reason: "NoOutcome", after: nil)
        }
    }
}
