import PushwireDelivery
import Synchronization

/// Deliveries by gateway and outcome, counted where the pipeline hands batches to an
/// application's gateway (`CountingGateway`), for `GET /metrics` (`pushwire_deliveries_total`).
/// The gateway is the push service of the notification's device (`apns`, `fcm`), `sink` or
/// `null` for applications without credentials, `none` for a platform no service serves.
public final class DeliveryMetrics: Sendable {
    /// The gateways told apart.
    static let gateways = ["apns", "fcm", "sink", "null", "none"]
    /// The outcomes told apart (`DeliveryOutcome`'s cases).
    static let outcomes = ["sent", "dead_token", "invalid_token", "retry", "failed"]
    /// One lock per batch handed to a gateway (thousands of notifications), not per notification.
    private let counts = Mutex([UInt64](repeating: 0, count: DeliveryMetrics.gateways.count * DeliveryMetrics.outcomes.count))

    /// Empty counters.
    public init() {}

    /// Counts `outcomes`, the answers to `batch` in its order; `sinkKind` is the sink's slot when
    /// the batch went to a sink, nil when to an application's push services.
    func record(_ batch: [OutgoingNotification], _ outcomes: [DeliveryOutcome], sinkKind: Int?) {
        var tally = [UInt64](repeating: 0, count: Self.gateways.count * Self.outcomes.count)
        for (index, outcome) in outcomes.enumerated() {
            let gateway: Int
            if let sinkKind {
                gateway = sinkKind
            } else if index < batch.count, let service = PushPlatform.service(deviceType: batch[index].deviceType) {
                gateway = service == .apns ? 0 : 1
            } else {
                gateway = 4
            }
            let kind: Int
            switch outcome {
            case .sent: kind = 0
            case .deadToken: kind = 1
            case .invalidToken: kind = 2
            case .retry: kind = 3
            case .failed: kind = 4
            }
            tally[gateway * Self.outcomes.count + kind] += 1
        }
        counts.withLock { counts in
            for (index, count) in tally.enumerated() where count > 0 { counts[index] &+= count }
        }
    }

    /// Every (gateway, outcome, count), in a fixed order.
    public var snapshot: [(gateway: String, outcome: String, count: UInt64)] {
        let values = counts.withLock { $0 }
        var out: [(gateway: String, outcome: String, count: UInt64)] = []
        for (g, gateway) in Self.gateways.enumerated() {
            for (o, outcome) in Self.outcomes.enumerated() {
                out.append((gateway, outcome, values[g * Self.outcomes.count + o]))
            }
        }
        return out
    }
}

/// A gateway that counts what the gateway it wraps reports, then passes it on unchanged.
struct CountingGateway: NotificationGateway {
    let inner: any NotificationGateway
    let metrics: DeliveryMetrics

    func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        let outcomes = await inner.deliver(batch)
        metrics.record(batch, outcomes, sinkKind: Self.sinkKind(of: inner))
        return outcomes
    }

    private static func sinkKind(of gateway: any NotificationGateway) -> Int? {
        switch gateway {
        case is FileSinkGateway: 2
        case is NullGateway: 3
        default: nil  // the application's push services (PlatformRouter)
        }
    }
}
