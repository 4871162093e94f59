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

    /// The cheap synchronous part of a registration, for the event loop: answers at once when the
    /// device is unchanged according to its fingerprint and the categories are cached (no store
    /// access), else returns nil and `registerDevice` does the rest in a task.
    public func registerDeviceIfUnchanged(_ request: RegisterDeviceRequest) throws(RPCError) -> RegisterDeviceResponse? {
        let prepared = try prepare(request)
        guard registry.fingerprints.matches(key: prepared.key, fingerprint: prepared.fingerprint) else { return nil }
        return try cachedResponse(for: request)
    }

    /// Creates or updates the device and returns the application's categories (unless the device
    /// already holds their version). An unchanged device is not written.
    public func registerDevice(_ request: RegisterDeviceRequest) async throws(RPCError) -> RegisterDeviceResponse {
        try await registerDeviceReportingOutcome(request).0
    }

    func registerDeviceReportingOutcome(_ request: RegisterDeviceRequest) async throws(RPCError) -> (RegisterDeviceResponse, RegistrationOutcome) {
        let prepared = try prepare(request)
        let fingerprints = registry.fingerprints
        if fingerprints.matches(key: prepared.key, fingerprint: prepared.fingerprint) {
            return (try await response(for: request), .unchangedCached)
        }
        if try await isStored(prepared.device, tags: prepared.tags) {
            fingerprints.rememberStored(key: prepared.key, fingerprint: prepared.fingerprint)
            return (try await response(for: request), .unchangedStored)
        }
        fingerprints.beginWrite(key: prepared.key)
        do {
            try await registry.store.upsertDevice(prepared.device, tags: prepared.tags)
        } catch {
            fingerprints.endWrite(key: prepared.key, fingerprint: nil)
            throw error.rpcError
        }
        fingerprints.endWrite(key: prepared.key, fingerprint: prepared.fingerprint)
        return (try await response(for: request), .written)
    }

    private struct Prepared {
        var device: DeviceRecord
        var tags: [TagChange]
        var key: Int
        var fingerprint: Int
    }

    private func prepare(_ request: RegisterDeviceRequest) throws(RPCError) -> Prepared {
        try DeviceValidation.checkApplicationAndHWID(application: request.application, hwid: request.hwid)
        let application = try registry.application(code: request.application)
        let device = try DeviceValidation.device(request, applicationID: application.id)
        let tags = try DeviceValidation.tagSets(request.tags)
        return Prepared(device: device, tags: tags,
                        key: RegistrationFingerprints.key(applicationID: application.id, hwid: device.hwid),
                        fingerprint: RegistrationFingerprints.fingerprint(device, tags: tags))
    }

    /// Whether the store already holds exactly this device and these tag values.
    private func isStored(_ device: DeviceRecord, tags: [TagChange]) async throws(RPCError) -> Bool {
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

    private func response(for request: RegisterDeviceRequest) async throws(RPCError) -> RegisterDeviceResponse {
        if let response = notModifiedResponse(for: request) { return response }
        return Self.response(try await registry.categories(code: request.application))
    }

    /// `response(for:)` from the cache alone; nil when the categories are not cached.
    private func cachedResponse(for request: RegisterDeviceRequest) throws(RPCError) -> RegisterDeviceResponse? {
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
            throw RPCError(.notFound, "application \(request.application) not found")
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
