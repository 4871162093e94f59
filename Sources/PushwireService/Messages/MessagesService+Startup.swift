import Foundation
import PushwireDelivery
import PushwireStore

extension MessagesService {
    /// The sink file's name in the data directory when `--sink` is not given.
    public static let defaultSinkFileName = "sink.jsonl"
    /// `--sink /dev/null`: notifications of apps without APNs credentials are accepted and
    /// dropped by the `NullGateway`, without being formatted (`pushwired` builds it so).
    public static let discardingSinkPath = "/dev/null"

    /// Builds the service with a running pipeline: applications with push credentials send each
    /// device through its platform's gateway (APNs, FCM), made as `deliveryGateways` says; the
    /// others go to its sink (`pushwired`'s default is the file `<data directory>/sink.jsonl`;
    /// `/dev/null` is a `NullGateway`, nothing formatted).
    static func start(registry: Registry, store: some MessageStore, gateways deliveryGateways: DeliveryGateways,
                      delivery: DeliveryPipeline.Configuration = DeliveryPipeline.Configuration()) -> MessagesService {
        let directory = registry.directory
        let gateways = GatewayDirectory(deliveryGateways) { id in directory.all().first { $0.id == id } }
        let metrics = DeliveryMetrics()
        let pipeline = DeliveryPipeline(store: store, configuration: delivery, log: registry.log) { CountingGateway(inner: gateways.gateway(applicationID: $0), metrics: metrics) }
        pipeline.start()
        var service = MessagesService(registry: registry, store: store, pipeline: pipeline)
        service.deliveryMetrics = metrics
        service.apnsStatistics = { gateways.apnsStatistics }
        service.fcmStatistics = { gateways.fcmStatistics }
        return service
    }
}
