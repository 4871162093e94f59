import PushwireDelivery
import PushwireStore
import PushwireWire

/// The read-only Messages methods an operator's console needs: the list of messages, the count
/// of a targeting, a notification's rendered payloads and one device as the fan-out sees it.
/// Each answers from the same code the sending path uses (`MessageValidation`, `PayloadRenderer`,
/// `MessageStore.targets`), so what the console shows is what will be sent.
extension MessagesService {
    /// The application's messages, newest first, one page at a time.
    public func listMessages(_ request: ListMessagesRequest, caller: Caller) async throws(RPCError) -> ListMessagesResponse {
        let application = try registry.authorizeApplication(caller)
        let size = request.pageSize == 0 ? MessageLimits.defaultPageSize : Int(request.pageSize)
        if size > MessageLimits.maxPageSize {
            throw RPCError(.invalidArgument, "page_size \(request.pageSize) is over \(MessageLimits.maxPageSize); ask for 1 to \(MessageLimits.maxPageSize)")
        }
        var before: Int64?
        if !request.pageToken.isEmpty {
            guard request.pageToken.utf8.count <= 20, let id = Int64(request.pageToken), id > 0 else {
                throw RPCError(.invalidArgument, "page_token \(RPCError.echo(request.pageToken)) is not one this server gave; pass next_page_token as it came")
            }
            before = id
        }
        // One more than asked tells whether another page follows without a second query.
        let rows = try await storeCall { () async throws(StoreError) in
            try await store.listMessages(applicationID: application.id, beforeID: before, limit: size + 1)
        }
        var response = ListMessagesResponse()
        response.messages = rows.prefix(size).map { row in
            var summary = MessageSummary()
            WireConversions.overview(row, into: &summary)
            return summary
        }
        if rows.count > size, let last = rows.prefix(size).last { response.nextPageToken = String(last.id) }
        return response
    }

    /// How many devices `targeting` selects now: the fan-out's own selection (`store.targets`,
    /// keyset pages in hwid order), walked to the end or to `maxCountedTargets`.
    public func countTargets(_ request: CountTargetsRequest, caller: Caller) async throws(RPCError) -> CountTargetsResponse {
        let application = try registry.authorizeApplication(caller)
        let targeting = try MessageValidation.targeting(request.targeting, index: 0)
        var response = CountTargetsResponse()
        var cursor: String?
        var counted = 0
        while counted < MessageLimits.maxCountedTargets {
            let batch = min(MessageLimits.countBatch, MessageLimits.maxCountedTargets - counted)
            let page = try await storeCall { () async throws(StoreError) in
                try await store.targets(applicationID: application.id, targeting, afterHWID: cursor, limit: batch)
            }
            counted += page.count
            if page.count < batch { break }
            cursor = page.last?.hwid
        }
        response.devices = UInt64(counted)
        response.atLeast = counted >= MessageLimits.maxCountedTargets
        return response
    }

    /// The notification checked exactly as CreateMessage checks it (same errors), then rendered
    /// by `PayloadRenderer` for the default texts and each translation, with a placeholder
    /// message code of the real length and the badge a device showing 0 gets.
    public func previewNotification(_ request: PreviewNotificationRequest, caller: Caller) async throws(RPCError) -> PreviewNotificationResponse {
        let application = try registry.authorizeApplication(caller)
        guard let notification = request.notification else { throw RPCError(.invalidArgument, "notification is missing") }
        let categories = try await registry.categories(code: application.code).categories
        let checked = try MessageValidation.check(notification, index: 0, categories: categories, nowMS: DeliveryPipeline.nowMS())
        let spec = checked.spec
        var response = PreviewNotificationResponse()
        response.limit = UInt32(NotificationLimits.maxPayloadBytes)
        let originals = Dictionary(notification.localizedContent.map { ($0.language, $0.text) }, uniquingKeysWith: { first, _ in first })
        var languages = [""]
        languages.append(contentsOf: spec.localized.keys.sorted())
        for language in languages {
            let texts = language.isEmpty ? spec.defaultTexts : spec.texts(language: language)
            let bytes = PayloadRenderer.render(spec, texts: texts, badge: spec.badge(after: 0), messageCode: MessageCodes.placeholder)
            var payload = RenderedPayload()
            payload.language = language
            payload.apnsPayload = String(decoding: bytes, as: UTF8.self)
            payload.size = UInt32(bytes.count)
            payload.worstCaseSize = UInt32(PayloadRenderer.worstCaseSize(spec, texts: texts))
            payload.trimmed = texts.body != (language.isEmpty ? notification.content : (originals[language] ?? notification.content))
            response.payloads.append(payload)
        }
        return response
    }

    /// One device of the application: its registration, tags and whether the fan-out reaches it
    /// (asked of `store.targets` with its hwid, the fan-out's own test); a token it does not
    /// reach is dead or invalid as the push service last answered (`store.tokenRefusal`), with
    /// since when.
    public func getDevice(_ request: GetDeviceRequest, caller: Caller) async throws(RPCError) -> GetDeviceResponse {
        let application = try registry.authorizeApplication(caller)
        if request.hwid.isEmpty { throw RPCError(.invalidArgument, "hwid is empty") }
        if request.hwid.utf8.count > Limits.maxHWIDBytes { throw RPCError(.invalidArgument, "hwid is longer than \(Limits.maxHWIDBytes) bytes") }
        let registry = registry
        let store = store
        let found = try await storeCall { () async throws(StoreError) -> (DeviceRecord, [TagRecord], Bool, RefusedToken?)? in
            guard let device = try await registry.store.device(applicationID: application.id, hwid: request.hwid) else { return nil }
            let tags = try await registry.store.tags(applicationID: application.id, hwid: request.hwid) ?? []
            let live = try await store.targets(applicationID: application.id, TargetingRecord(hwids: [request.hwid]),
                                               afterHWID: nil, limit: 1)
            let refusal = live.isEmpty ? try await store.tokenRefusal(applicationID: application.id, hwid: request.hwid) : nil
            return (device, tags, !live.isEmpty, refusal)
        }
        guard let (device, tags, live, refusal) = found else {
            throw RPCError(.notFound, "device \(RPCError.echo(request.hwid)) not found")
        }
        var response = GetDeviceResponse()
        response.hwid = device.hwid
        response.deviceType = DeviceType(rawValue: device.deviceType)
        response.language = device.language
        response.userID = device.userID
        response.tags = tags.map(WireConversions.tag)
        response.pushToken = device.pushToken
        if live {
            response.tokenState = .live
        } else if device.pushToken.isEmpty {
            response.tokenState = .noToken
        } else {
            // Not targeted with a token: refused (no refusal read means it was refused and the
            // row changed between the two reads; dead is what the selection said).
            response.tokenState = refusal?.state == .invalid ? .invalid : .dead
            response.tokenRefusedAtMS = refusal?.sinceMS ?? 0
        }
        if let target = try await storeCall({ () async throws(StoreError) in
            try await store.target(applicationID: application.id, hwid: request.hwid)
        }) {
            response.badge = target.badge
        }
        return response
    }
}
