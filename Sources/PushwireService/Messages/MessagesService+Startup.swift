import Foundation
import PushwireAPNs
import PushwireDelivery
import PushwireStore

extension MessagesService {
    /// The sink file's name in the data directory when `--sink` is not given.
    public static let defaultSinkFileName = "sink.jsonl"
    /// `--sink /dev/null`: notifications of apps without APNs credentials are accepted and
    /// dropped by the `NullGateway`, without being formatted.
    public static let discardingSinkPath = "/dev/null"

    /// Builds the service with a running pipeline: applications with push credentials send each
    /// device through its platform's gateway (APNs, FCM), the others write to the file sink at
    /// `sinkPath` (`pushwired`'s default is `<data directory>/sink.jsonl`; `/dev/null` drops them
    /// unformatted). `apns` and `fcm` are how those gateways connect (base URL override and CA
    /// file for a local double).
    /// - Throws: `FileSinkGateway.OpenError` when the sink file cannot be opened.
    static func start(registry: Registry, store: some MessageStore, sinkPath path: String,
                      delivery: DeliveryPipeline.Configuration = DeliveryPipeline.Configuration(),
                      apns: APNsConfiguration = APNsConfiguration(), fcm: APNsConfiguration = APNsConfiguration()) throws(FileSinkGateway.OpenError) -> MessagesService {
        let sink: any NotificationGateway
        if path == discardingSinkPath {
            // Nothing would read the lines: skip formatting them (fan-out benchmarks).
            sink = NullGateway()
        } else {
            sink = try FileSinkGateway(path: path)
        }
        let directory = registry.directory
        let gateways = GatewayDirectory(sink: sink, apns: apns, fcm: fcm) { id in directory.all().first { $0.id == id } }
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
