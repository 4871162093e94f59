import PushwireDelivery
import Synchronization

/// Deliveries by gateway, platform and outcome, counted where the pipeline hands batches to an
/// application's gateway (`CountingGateway`), for `GET /metrics` (`pushwire_deliveries_total`),
/// and the notifications with the gateways now (`pushwire_gateway_notifications_in_flight`).
/// The gateway is the push service of the notification's device (`apns`, `fcm`), `sink` or
/// `null` for applications without credentials, `none` for a platform no service serves; the
/// platform is the device's (`ios`, `android`, `macos`, `safari`, `other`).
public final class DeliveryMetrics: Sendable {
    /// The gateways told apart.
    static let gateways = ["apns", "fcm", "sink", "null", "none"]
    /// The platforms told apart (`PushPlatform`'s names; every other device type is `other`).
    static let platforms = ["ios", "android", "macos", "safari", "other"]
    /// The outcomes told apart (`DeliveryOutcome`'s cases).
    static let outcomes = ["sent", "dead_token", "invalid_token", "retry", "failed"]
    private static let slots = gateways.count * platforms.count * outcomes.count
    /// One lock per batch handed to a gateway (thousands of notifications), not per notification.
    private let counts = Mutex([UInt64](repeating: 0, count: DeliveryMetrics.slots))
    private let inFlight = Atomic<Int>(0)

    /// Empty counters.
    public init() {}

    private static func platformSlot(_ deviceType: Int32) -> Int {
        switch deviceType {
        case PushPlatform.iOS: 0
        case PushPlatform.android: 1
        case PushPlatform.macOS: 2
        case PushPlatform.safari: 3
        default: 4
        }
    }

    private static func slot(gateway: Int, platform: Int, outcome: Int) -> Int {
        (gateway * platforms.count + platform) * outcomes.count + outcome
    }

    /// Counts `count` notifications handed to a gateway (`+`) or answered by it (`-`).
    func handed(_ count: Int) { inFlight.wrappingAdd(count, ordering: .relaxed) }

    /// Counts `outcomes`, the answers to `batch` in its order; `sinkKind` is the sink's slot when
    /// the batch went to a sink, nil when to an application's push services.
    func record(_ batch: [OutgoingNotification], _ outcomes: [DeliveryOutcome], sinkKind: Int?) {
        var tally = [UInt64](repeating: 0, count: Self.slots)
        for (index, outcome) in outcomes.enumerated() {
            let deviceType = index < batch.count ? batch[index].deviceType : 0
            let gateway: Int
            if let sinkKind {
                gateway = sinkKind
            } else if let service = PushPlatform.service(deviceType: deviceType) {
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
            tally[Self.slot(gateway: gateway, platform: Self.platformSlot(deviceType), outcome: kind)] += 1
        }
        counts.withLock { counts in
            for (index, count) in tally.enumerated() where count > 0 { counts[index] &+= count }
        }
    }

    /// Every (gateway, platform, outcome, count) that is not zero, plus the zeros of each push
    /// service's own platforms (APNs: ios, macos, safari; FCM: android) so that a dashboard finds
    /// those series before the first delivery; in a fixed order.
    public var snapshot: [(gateway: String, platform: String, outcome: String, count: UInt64)] {
        let values = counts.withLock { $0 }
        var out: [(gateway: String, platform: String, outcome: String, count: UInt64)] = []
        for (g, gateway) in Self.gateways.enumerated() {
            for (p, platform) in Self.platforms.enumerated() {
                let native = (g == 0 && (p == 0 || p == 2 || p == 3)) || (g == 1 && p == 1)
                for (o, outcome) in Self.outcomes.enumerated() {
                    let value = values[Self.slot(gateway: g, platform: p, outcome: o)]
                    if value > 0 || native { out.append((gateway, platform, outcome, value)) }
                }
            }
        }
        return out
    }

    /// Notifications handed to gateways and not answered yet.
    public var notificationsInFlight: Int { inFlight.load(ordering: .relaxed) }
}

/// A gateway that counts what the gateway it wraps reports, then passes it on unchanged.
struct CountingGateway: NotificationGateway {
    let inner: any NotificationGateway
    let metrics: DeliveryMetrics

    func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        metrics.handed(batch.count)
        let outcomes = await inner.deliver(batch)
        metrics.handed(-batch.count)
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
