import PushwireStore
import PushwireWire

/// `pushwire.v1.Devices` (registration, tags, category sync): devices name their application by
/// code and need no token.
public struct DevicesService: Sendable {
    let registry: Registry

    /// Creates the service over the shared registry.
    public init(registry: Registry) { self.registry = registry }

    /// How a registration was handled.
    enum RegistrationOutcome: Equatable {
        /// The fingerprint matched: nothing read, nothing written.
        case unchangedCached
        /// Read from the store and found identical: nothing written.
        case unchangedStored
        /// Written durably.
        case written
    }

    /// Creates or updates the device and returns the application's categories (unless the device
    /// already holds their version). An unchanged device is not written. The regular door of
    /// RegisterDevice (the raw fast path is the other): it decides in `decide`, like the fast path.
    /// Runs on the event loop and does not block there; `complete` is called once, from any thread.
    public func registerDevice(_ request: RegisterDeviceRequest,
                               complete: @escaping @Sendable (Result<RegisterDeviceResponse, RPCError>) -> Void) {
        registerDeviceReportingOutcome(request) { complete($0.map(\.response)) }
    }

    /// `registerDevice(_:complete:)`, awaited.
    public func registerDevice(_ request: RegisterDeviceRequest) async throws(RPCError) -> RegisterDeviceResponse {
        try await registerDeviceReportingOutcome(request).0
    }

    func registerDeviceReportingOutcome(_ request: RegisterDeviceRequest) async throws(RPCError) -> (RegisterDeviceResponse, RegistrationOutcome) {
        let result: Result<(response: RegisterDeviceResponse, outcome: RegistrationOutcome), RPCError> = await withCheckedContinuation { continuation in
            registerDeviceReportingOutcome(request) { continuation.resume(returning: $0) }
        }
        let answer = try result.get()
        return (answer.response, answer.outcome)
    }

    func registerDeviceReportingOutcome(
        _ request: RegisterDeviceRequest,
        complete: @escaping @Sendable (Result<(response: RegisterDeviceResponse, outcome: RegistrationOutcome), RPCError>) -> Void
    ) {
        let application: ApplicationRecord
        do throws(RPCError) {
            // The hwid is checked before the application is looked up, so that an empty one is
            // INVALID_ARGUMENT whether or not the application exists.
            try DeviceValidation.checkApplicationAndHWID(application: request.application, hwid: request.hwid)
            application = try registry.application(code: request.application)
        } catch {
            complete(.failure(error))
            return
        }
        switch decide(request, applicationID: application.id) {
        case .refused(let error):
            complete(.failure(error))
        case .unchanged:
            // From the cache on the loop; categories not cached are read in a task, off it.
            do throws(RPCError) {
                if let response = try cachedResponse(for: request) {
                    complete(.success((response, .unchangedCached)))
                    return
                }
            } catch {
                complete(.failure(error))
                return
            }
            Task { complete(await self.answer(request, .unchangedCached)) }
        case .write(let prepared):
            let pending = prepared.pending
            startWrite(prepared) { result in
                // Off the syncer (the answer may read the categories): a task.
                Task {
                    self.finishWrite(pending, after: result)
                    switch result {
                    case .success(let outcome): complete(await self.answer(request, outcome))
                    case .failure(let error): complete(.failure(error))
                    }
                }
            }
        }
    }

    /// The answer to `request` after `outcome`, its categories read if they are not cached.
    private func answer(_ request: RegisterDeviceRequest, _ outcome: RegistrationOutcome) async
        -> Result<(response: RegisterDeviceResponse, outcome: RegistrationOutcome), RPCError> {
        do throws(RPCError) {
            return .success((try await response(for: request), outcome))
        } catch {
            return .failure(error)
        }
    }

    /// Whether the store already holds exactly this device and these tag values.
    func isStored(_ device: DeviceRecord, tags: [TagChange]) async throws(RPCError) -> Bool {
        let stored = try await storeCall { () async throws(StoreError) in
            try await registry.store.device(applicationID: device.applicationID, hwid: device.hwid)
        }
        guard stored == device else { return false }
        if tags.isEmpty { return true }
        let storedTags = try await storeCall { () async throws(StoreError) in
            try await registry.store.tags(applicationID: device.applicationID, hwid: device.hwid) ?? []
        }
        var byName: [String: TagValueRecord] = [:]
        for tag in storedTags { byName[tag.name] = tag.value }
        var wanted: [String: TagValueRecord] = [:]
        for case .set(let name, let value) in tags { wanted[name] = value }  // the last set of a name wins
        return wanted.allSatisfy { byName[$0.key] == $0.value }
    }

    /// The answer to a registration: not modified, or the categories (read if not cached).
    func response(for request: RegisterDeviceRequest) async throws(RPCError) -> RegisterDeviceResponse {
        if let response = notModifiedResponse(for: request) { return response }
        return Self.response(try await registry.categories(code: request.application))
    }

    /// `response(for:)` from the cache alone, for the event loop; nil when the categories are
    /// not cached.
    func cachedResponse(for request: RegisterDeviceRequest) throws(RPCError) -> RegisterDeviceResponse? {
        if let response = notModifiedResponse(for: request) { return response }
        return try registry.cachedCategories(code: request.application).map(Self.response)
    }

    private func notModifiedResponse(for request: RegisterDeviceRequest) -> RegisterDeviceResponse? {
        guard request.knownCategoriesVersion != 0,
              registry.categoriesVersion(code: request.application) == request.knownCategoriesVersion else { return nil }
        var response = RegisterDeviceResponse()
        response.categoriesVersion = request.knownCategoriesVersion
        response.categoriesNotModified = true
        return response
    }

    private static func response(_ current: (categories: [Category], version: UInt64)) -> RegisterDeviceResponse {
        var response = RegisterDeviceResponse()
        response.iosCategories = current.categories
        response.categoriesVersion = current.version
        return response
    }

    /// Clears the device's push token. - Throws: NOT_FOUND for an unknown application or device.
    public func unregisterDevice(_ request: UnregisterDeviceRequest) async throws(RPCError) -> UnregisterDeviceResponse {
        try DeviceValidation.checkApplicationAndHWID(application: request.application, hwid: request.hwid)
        let application = try registry.application(code: request.application)
        let key = RegistrationFingerprints.key(applicationID: application.id, hwid: request.hwid)
        registry.fingerprints.beginWrite(key: key)
        defer { registry.fingerprints.endWrite(key: key, fingerprint: nil) }
        let found = try await storeCall { () async throws(StoreError) in
            try await registry.store.unregisterDevice(applicationID: application.id, hwid: request.hwid)
        }
        guard found else { throw RPCError(.notFound, "device \(request.hwid) not found") }
        return UnregisterDeviceResponse()
    }

    /// Stores the badge the app shows now, from which a message's badge increment counts.
    /// - Throws: NOT_FOUND for an unknown application or device.
    public func setBadge(_ request: SetBadgeRequest) async throws(RPCError) -> SetBadgeResponse {
        try DeviceValidation.checkApplicationAndHWID(application: request.application, hwid: request.hwid)
        let application = try registry.application(code: request.application)
        let found = try await storeCall { () async throws(StoreError) in
            try await registry.store.setBadge(applicationID: application.id, hwid: request.hwid, badge: Int64(request.badge))
        }
        guard found else { throw RPCError(.notFound, "device \(RPCError.echo(request.hwid)) not found") }
        return SetBadgeResponse()
    }

    /// Applies tag updates in order, all or nothing; returns the tags after.
    public func setTags(_ request: SetTagsRequest) async throws(RPCError) -> SetTagsResponse {
        try DeviceValidation.checkApplicationAndHWID(application: request.application, hwid: request.hwid)
        let application = try registry.application(code: request.application)
        let changes = try DeviceValidation.tagChanges(request.updates)
        // The stored tags change: a registration carrying the old values must write again.
        let key = RegistrationFingerprints.key(applicationID: application.id, hwid: request.hwid)
        registry.fingerprints.beginWrite(key: key)
        defer { registry.fingerprints.endWrite(key: key, fingerprint: nil) }
        let tags = try await storeCall { () async throws(StoreError) in
            try await registry.store.updateTags(applicationID: application.id, hwid: request.hwid, changes)
        }
        var response = SetTagsResponse()
        response.tags = tags.map(WireConversions.tag)
        return response
    }

    /// The device's tags, by name.
    public func getTags(_ request: GetTagsRequest) async throws(RPCError) -> GetTagsResponse {
        try DeviceValidation.checkApplicationAndHWID(application: request.application, hwid: request.hwid)
        let application = try registry.application(code: request.application)
        guard let tags = try await storeCall({ () async throws(StoreError) in
            try await registry.store.tags(applicationID: application.id, hwid: request.hwid)
        }) else {
            throw RPCError(.notFound, "device \(request.hwid) not found")
        }
        var response = GetTagsResponse()
        response.tags = tags.map(WireConversions.tag)
        return response
    }

    /// `syncCategories` on the event loop, from memory: nil when the full set is needed and not
    /// cached (then `syncCategories` answers, in a task).
    public func syncCategoriesIfCached(_ request: SyncCategoriesRequest) throws(RPCError) -> SyncCategoriesResponse? {
        if let response = try notModifiedResponse(for: request) { return response }
        return try registry.cachedCategories(code: request.application).map(Self.syncResponse)
    }

    /// `not_modified` when `known_version` is current (answered from memory), else the full set.
    public func syncCategories(_ request: SyncCategoriesRequest) async throws(RPCError) -> SyncCategoriesResponse {
        if let response = try notModifiedResponse(for: request) { return response }
        return Self.syncResponse(try await registry.categories(code: request.application))
    }

    private func notModifiedResponse(for request: SyncCategoriesRequest) throws(RPCError) -> SyncCategoriesResponse? {
        if request.application.isEmpty { throw RPCError(.invalidArgument, "application is empty: pass the application code, e.g. A1B2C-3D4E5") }
        guard let version = registry.categoriesVersion(code: request.application) else {
            throw RPCError(.notFound, "application \(RPCError.echo(request.application)) not found")
        }
        guard request.knownVersion == version else { return nil }
        var response = SyncCategoriesResponse()
        response.notModified = true
        response.version = version
        return response
    }

    private static func syncResponse(_ current: (categories: [Category], version: UInt64)) -> SyncCategoriesResponse {
        var response = SyncCategoriesResponse()
        response.categories = current.categories
        response.version = current.version
        return response
    }
}
