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
            complete(Result(catching: { () throws(RPCError) in (try response(for: request), .unchangedCached) }))
        case .write(let prepared):
            startWrite(prepared) { result in
                // Off the syncer (the answer may read the categories): a task.
                Task {
                    self.finishWrite(prepared, after: result)
                    complete(result.flatMap { outcome in Result(catching: { () throws(RPCError) in (try self.response(for: request), outcome) }) })
                }
            }
        }
    }

    /// Whether the store already holds exactly this device and these tag values.
    func isStored(_ device: DeviceRecord, tags: [TagChange]) throws(RPCError) -> Bool {
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

    func response(for request: RegisterDeviceRequest) throws(RPCError) -> RegisterDeviceResponse {
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
            throw RPCError(.notFound, "application \(RPCError.echo(request.application)) not found")
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
