import Foundation
import PushwireDelivery
import PushwireStore

extension MessagesService {
    /// The sink file's name in the data directory when `--sink` is not given.
    public static let defaultSinkFileName = "sink.jsonl"

    /// Builds the service with a running pipeline whose gateway is the file sink at `sinkPath`
    /// (default `<dataDirectory>/sink.jsonl`).
    ///
    /// Every application gets the file sink for now; once PushwireAPNs lands, applications with
    /// APNs settings get the APNs gateway here (the chooser is called per message).
    /// - Throws: `.cannotOpen` when the sink file cannot be opened.
    static func start(registry: Registry, store: some MessageStore, dataDirectory: String, sinkPath: String?) throws(StoreError) -> MessagesService {
        let path = sinkPath ?? (dataDirectory as NSString).appendingPathComponent(defaultSinkFileName)
        let sink: FileSinkGateway
        do { sink = try FileSinkGateway(path: path) } catch { throw .cannotOpen(path: path, reason: error.description) }
        let pipeline = DeliveryPipeline(store: store) { _ in sink }
        pipeline.start()
        return MessagesService(registry: registry, store: store, pipeline: pipeline)
    }
}
