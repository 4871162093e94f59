import Foundation
import PushwireStore
import PushwireWire

/// `pushwire.v1.Messages` (CreateMessage, DeleteMessage, GetMessageDetails; the app's access
/// token) and `Devices/TrackAction` (the device's application code).
public struct MessagesService: Sendable {
    let registry: Registry
    let store: any MessageStore
    let pipeline: DeliveryPipeline
    let knownDevices = KnownDevices()
    /// Deliveries by gateway and outcome (for /metrics); counted by the gateways `start` wraps.
    public internal(set) var deliveryMetrics = DeliveryMetrics()
    /// The APNs gateways' figures (gateways, provider tokens signed, connection retries), for /metrics.
    var apnsStatistics: @Sendable () -> GatewayDirectory.Statistics = { GatewayDirectory.Statistics() }
    /// The FCM gateways' figures for /metrics (GatewayDirectory.fcmStatistics).
    var fcmStatistics: @Sendable () -> GatewayDirectory.Statistics = { GatewayDirectory.Statistics() }

    /// Creates the service; `pipeline` is told of every message created (and woken when it can start it).
    public init(registry: Registry, store: any MessageStore, pipeline: DeliveryPipeline) {
        self.registry = registry
        self.store = store
        self.pipeline = pipeline
    }

    /// Validates every notification, stores them durably (idempotently by transaction id) and
    /// returns their codes; the pipeline sends them at their time.
    public func createMessage(_ request: CreateMessageRequest, caller: Caller) async throws(RPCError) -> CreateMessageResponse {
        let application = try registry.authorizeApplication(caller)
        // A category another server created a moment ago is read from the store (Registry).
        let cached = try await registry.categories(code: application.code)
        var categories = cached.categories
        if !MessagesService.holds(categories, everyCategoryOf: request) {
            categories = try await registry.storedCategories(code: application.code, newerThan: cached).categories
        }
        let prepared = try prepare(request, application: application, categories: categories)
        var response = CreateMessageResponse()
        if !prepared.named.isEmpty {
            let answer = try await storeCall { () async throws(StoreError) in
                try await knownDevices.check(applicationID: prepared.applicationID, hwids: prepared.named, store: store)
            }
            response.unknownDevices = answer.unknown
            response.tokenlessDevices = answer.tokenless
        }
        let created = try await storeCall { () async throws(StoreError) in try await store.createMessages(prepared.records) }
        response.messageCodes = created.map(\.code)
        pipeline.flowMetrics.entered(.scheduled, created.count)
        pipeline.messagesCreated(created, specs: prepared.specs(for: created))
        return response
    }

    /// `createMessage` for the event loop: validation and the answer happen on the calling thread,
    /// the write goes to the store's group commit and `complete` runs once it is durable, on the
    /// store's syncer thread (no task, no continuation). Only when the application's categories
    /// or a named device are not cached, which takes a store read, does the call move to a task.
    public func createMessage(_ request: CreateMessageRequest, caller: Caller,
                              complete: @escaping @Sendable (Result<CreateMessageResponse, RPCError>) -> Void) {
        var prepared: Prepared?
        do throws(RPCError) {
            let application = try registry.authorizeApplication(caller)
            // A named category missing from the cache goes to the task, which reads the store.
            if let categories = try registry.cachedCategories(code: application.code)?.categories,
               MessagesService.holds(categories, everyCategoryOf: request) {
                prepared = try prepare(request, application: application, categories: categories)
            }
        } catch {
            complete(.failure(error))
            return
        }
        guard let prepared, let unknown = knownDevices.cachedUnknown(applicationID: prepared.applicationID, hwids: prepared.named) else {
            let service = self
            Task {
                do throws(RPCError) {
                    complete(.success(try await service.createMessage(request, caller: caller)))
                } catch {
                    complete(.failure(error))
                }
            }
            return
        }
        let pipeline = pipeline
        store.createMessages(prepared.records) { result in
            switch result {
            case .failure(let error):
                complete(.failure(error.rpcError))
            case .success(let created):
                var response = CreateMessageResponse()
                response.unknownDevices = unknown
                response.messageCodes = created.map(\.code)
                pipeline.flowMetrics.entered(.scheduled, created.count)
                pipeline.messagesCreated(created, specs: prepared.specs(for: created))
                complete(.success(response))
            }
        }
    }

    /// A checked CreateMessage, ready to store.
    struct Prepared {
        var applicationID: Int64
        var records: [NewMessageRecord]
        /// Every hwid the notifications name, for `unknown_devices` and `tokenless_devices`.
        var named: [String]
        /// The spec of each record (whose `spec` is its JSON text).
        var specs: [MessageSpec] = []

        /// Each created message's spec, for the pipeline: nil where the store returned a message
        /// other than the one built here (a retried transaction id answers with the message
        /// first created, whose content may differ), told apart by the stored text.
        func specs(for created: [MessageRecord]) -> [MessageSpec?] {
            guard created.count == records.count, specs.count == records.count else { return [] }
            return created.indices.map { created[$0].spec == records[$0].spec ? specs[$0] : nil }
        }
    }

    /// Whether `categories` has every category the request's notifications name.
    static func holds(_ categories: [Category], everyCategoryOf request: CreateMessageRequest) -> Bool {
        request.notifications.allSatisfy { n in n.iosCategoryID == 0 || categories.contains { $0.categoryID == n.iosCategoryID } }
    }

    /// Checks every notification of the authorized `application` against its `categories`
    /// (INVALID_ARGUMENT names the first bad one).
    func prepare(_ request: CreateMessageRequest, application: ApplicationRecord, categories: [Category]) throws(RPCError) -> Prepared {
        let count = request.notifications.count
        if !MessageLimits.notificationsPerRequest.contains(count) {
            throw RPCError(.invalidArgument, "notifications: \(count) given; send 1 to \(MessageLimits.notificationsPerRequest.upperBound) per request")
        }
        let now = DeliveryPipeline.nowMS()
        // Due now, a message is handed to this server's scheduler in memory: created under its
        // lease, it is not claimed by another server's look at the outbox meanwhile (which took
        // a third of them under a stream of CreateMessage on two servers, each then read back
        // there and its first step here writing nothing). One the scheduler's memory cannot take
        // has the lease released (`DeliveryPipeline.messagesCreated`).
        let lease = pipeline.lease()
        var prepared = Prepared(applicationID: application.id, records: [], named: [])
        prepared.records.reserveCapacity(count)
        for (index, notification) in request.notifications.enumerated() {
            let checked = try MessageValidation.check(notification, index: index, categories: categories, nowMS: now)
            let spec = MessageSpecJSON.encode(checked.spec)
            prepared.records.append(NewMessageRecord(
                applicationID: application.id, code: MessageCodes.make(), transactionID: checked.transactionID,
                sendAtMS: checked.sendAtMS, categoryID: checked.spec.categoryID, targeting: checked.targeting, spec: spec,
                lease: checked.sendAtMS <= now ? lease : nil))
            prepared.specs.append(checked.spec)
            if let devices = notification.targeting?.devices { prepared.named.append(contentsOf: devices) }
        }
        return prepared
    }

    /// Cancels a scheduled message. FAILED_PRECONDITION once it started; deleting a cancelled one again is OK.
    public func deleteMessage(_ request: DeleteMessageRequest, caller: Caller) async throws(RPCError) -> DeleteMessageResponse {
        let application = try registry.authorizeApplication(caller)
        if request.messageCode.isEmpty { throw RPCError(.invalidArgument, "message_code is empty") }
        let before = try await storeCall { () async throws(StoreError) in
            try await store.cancelMessage(applicationID: application.id, code: request.messageCode)
        }
        switch before {
        case nil: throw RPCError(.notFound, "message \(RPCError.echo(request.messageCode)) not found")
        case .scheduled?:
            pipeline.flowMetrics.entered(.cancelled)
            registry.log.action("message cancelled", by: application.code, ["message_code": request.messageCode])
            return DeleteMessageResponse()
        case .cancelled?: return DeleteMessageResponse()
        case .sending?: throw RPCError(.failedPrecondition, "message \(RPCError.echo(request.messageCode)) is already going out; it cannot be deleted")
        case .done?: throw RPCError(.failedPrecondition, "message \(RPCError.echo(request.messageCode)) was already sent; it cannot be deleted")
        }
    }

    /// Status and counts of one of the application's messages.
    public func getMessageDetails(_ request: GetMessageDetailsRequest, caller: Caller) async throws(RPCError) -> GetMessageDetailsResponse {
        let application = try registry.authorizeApplication(caller)
        if request.messageCode.isEmpty { throw RPCError(.invalidArgument, "message_code is empty") }
        guard let message = try await storeCall({ () async throws(StoreError) in
            try await store.message(applicationID: application.id, code: request.messageCode)
        }) else {
            throw RPCError(.notFound, "message \(RPCError.echo(request.messageCode)) not found")
        }
        let stats = try await storeCall { () async throws(StoreError) in try await store.statistics(messageID: message.id) }
        var response = GetMessageDetailsResponse()
        let overview = MessageSummaryRecord(id: message.id, code: message.code, status: message.status, sendAtMS: message.sendAtMS,
                                            categoryID: message.categoryID, targeted: stats.targeted, sent: stats.sent, failed: stats.failed)
        WireConversions.overview(overview, into: &response)
        response.invalidTokens = stats.invalidTokens
        response.failures = stats.failures.map {
            var failure = FailureCount()
            failure.reason = $0.reason
            failure.count = $0.count
            return failure
        }
        response.opened = stats.opened
        response.platforms = stats.platforms.map {
            var counts = PlatformCount()
            counts.deviceType = DeviceType(rawValue: $0.deviceType)
            counts.targeted = $0.targeted
            counts.sent = $0.sent
            counts.failed = $0.failed
            counts.invalidTokens = $0.invalidTokens
            return counts
        }
        let buttons = message.categoryID == 0 ? [] :
            (try await registry.categories(code: application.code, holding: message.categoryID).categories
                .first { $0.categoryID == message.categoryID }?.buttons ?? [])
        var listed = Set<UInt32>()
        for button in buttons {
            listed.insert(button.id)
            response.taps.append(tapCount(button.id, label: button.label, count: stats.taps[button.id] ?? 0))
        }
        // Taps on buttons the category no longer has still count, without a label.
        for (id, count) in stats.taps.sorted(by: { $0.key < $1.key }) where !listed.contains(id) {
            response.taps.append(tapCount(id, label: "", count: count))
        }
        // A second read only once there are taps: a message being polled while it fans out has none.
        if !stats.taps.isEmpty {
            let minutes = try await storeCall { () async throws(StoreError) in
                try await store.tapsPerMinute(messageID: message.id, latest: MessagesService.tapMinutesShown)
            }
            response.tapsOverTime = minutes.map {
                var minute = TapMinute()
                minute.minuteMS = $0.minute * 1000
                minute.taps = $0.taps
                return minute
            }
        }
        return response
    }

    /// How many of the latest minutes `taps_over_time` holds at most (one day).
    static let tapMinutesShown = 1440

    private func tapCount(_ id: UInt32, label: String, count: UInt64) -> ButtonTapCount {
        var tap = ButtonTapCount()
        tap.buttonID = id
        tap.label = label
        tap.count = count
        return tap
    }
}

