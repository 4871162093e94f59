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

    /// The cheap synchronous part of a registration: answers at once when the device is unchanged
    /// according to its fingerprint (no store access), else returns what must be done.
    /// - Returns: the response when the registration needs no write; nil when it must go to the store.
    public func registerDeviceIfUnchanged(_ request: RegisterDeviceRequest) throws(RPCError) -> RegisterDeviceResponse? {
        let prepared = try prepare(request)
        guard registry.fingerprints.matches(key: prepared.key, fingerprint: prepared.fingerprint) else { return nil }
        return try response(for: request)
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
            return (try response(for: request), .unchangedCached)
        }
        if try isStored(prepared.device, tags: prepared.tags) {
            fingerprints.rememberStored(key: prepared.key, fingerprint: prepared.fingerprint)
            return (try response(for: request), .unchangedStored)
        }
        fingerprints.beginWrite(key: prepared.key)
        do {
            try await registry.store.upsertDevice(prepared.device, tags: prepared.tags)
        } catch {
            fingerprints.endWrite(key: prepared.key, fingerprint: nil)
            throw error.rpcError
        }
        fingerprints.endWrite(key: prepared.key, fingerprint: prepared.fingerprint)
        return (try response(for: request), .written)
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
    private func isStored(_ device: DeviceRecord, tags: [TagChange]) throws(RPCError) -> Bool {
        let stored = try storeCall { () throws(StoreError) in try registry.store.device(applicationID: device.applicationID, hwid: device.hwid) }
        guard stored == device else { return false }
        if tags.isEmpty { return true }
        let storedTags = try storeCall { () throws(StoreError) in
            try registry.store.tags(applicationID: device.applicationID, hwid: device.hwid) ?? []
        }
        var byName: [String: TagValueRecord] = [:]
        for tag in storedTags { byName[tag.name] = tag.value }
        var wanted: [String: TagValueRecord] = [:]
        for case .set(let name, let value) in tags { wanted[name] = value }  // the last set of a name wins
        return wanted.allSatisfy { byName[$0.key] == $0.value }
    }

    private func response(for request: RegisterDeviceRequest) throws(RPCError) -> RegisterDeviceResponse {
        var response = RegisterDeviceResponse()
        if request.knownCategoriesVersion != 0, registry.categoriesVersion(code: request.application) == request.knownCategoriesVersion {
            response.categoriesVersion = request.knownCategoriesVersion
            response.categoriesNotModified = true
            return response
        }
        let (categories, version) = try registry.categories(code: request.application)
        response.iosCategories = categories
        response.categoriesVersion = version
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
    public func getTags(_ request: GetTagsRequest) throws(RPCError) -> GetTagsResponse {
        try DeviceValidation.checkApplicationAndHWID(application: request.application, hwid: request.hwid)
        let application = try registry.application(code: request.application)
        guard let tags = try storeCall({ () throws(StoreError) in try registry.store.tags(applicationID: application.id, hwid: request.hwid) }) else {
            throw RPCError(.notFound, "device \(request.hwid) not found")
        }
        var response = GetTagsResponse()
        response.tags = tags.map(WireConversions.tag)
        return response
    }

    /// `not_modified` when `known_version` is current (answered from memory), else the full set.
    public func syncCategories(_ request: SyncCategoriesRequest) throws(RPCError) -> SyncCategoriesResponse {
        if request.application.isEmpty { throw RPCError(.invalidArgument, "application is empty: pass the application code, e.g. A1B2C-3D4E5") }
        var response = SyncCategoriesResponse()
        guard let version = registry.categoriesVersion(code: request.application) else {
            throw RPCError(.notFound, "application \(request.application) not found")
        }
        if request.knownVersion == version {
            response.notModified = true
            response.version = version
            return response
        }
        let (categories, current) = try registry.categories(code: request.application)
        response.categories = categories
        response.version = current
        return response
    }
}
