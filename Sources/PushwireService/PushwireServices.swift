import PushwireAPNs
import PushwireDelivery
import PushwireStore
import PushwireWire

/// The registration services of issue 5 over one store: what `pushwired` opens and registers.
public final class PushwireServices: Sendable {
    /// The shared state (store, applications, fingerprints).
    public let registry: Registry
    /// `pushwire.v1.Admin`.
    public let admin: AdminService
    /// `pushwire.v1.Devices` (without TrackAction, which belongs to the messages service).
    public let devices: DevicesService
    /// `pushwire.v1.Categories`.
    public let categories: CategoriesService
    /// `pushwire.v1.Messages` and `Devices/TrackAction`, with their delivery pipeline (Messages/).
    public let messages: MessagesService
    private let store: any PushwireStore

    /// Builds the services over `store`, an engine `pushwired` chose and opened, and loads the
    /// applications and their categories; the services close the store in `close()`.
    /// - Parameters:
    ///   - sinkPath: the file sink of applications without APNs settings (`/dev/null`: dropped).
    ///   - apnsURL: replaces Apple's base URL for every application with APNs settings (e.g.
    ///     `https://127.0.0.1:8443`, a local APNs double); nil: each app's environment decides.
    ///   - apnsCAFile: a PEM file of CA certificates APNs connections trust instead of the system's;
    ///     TLS verification stays on either way.
    /// - Throws: `StoreError` with a message for a person (the store could not be read, the sink
    ///   file cannot be opened); the store is closed then.
    public init(store: some PushwireStore & MessageStore, adminToken: String, sinkPath: String,
                apnsURL: String? = nil, apnsCAFile: String? = nil) async throws(StoreError) {
        self.store = store
        do {
            registry = try await Registry(store: store, adminToken: adminToken)
            messages = try MessagesService.start(registry: registry, store: store, sinkPath: sinkPath,
                                                 apns: APNsConfiguration(baseURLOverride: apnsURL, caFile: apnsCAFile))
        } catch {
            store.close()
            throw error
        }
        admin = AdminService(registry: registry)
        devices = DevicesService(registry: registry)
        categories = CategoriesService(registry: registry)
    }

    /// Registers every method of Admin, Categories and Devices (but TrackAction) on `server`
    /// (the runtime's `Server` conforms to `MethodRegistrar`).
    ///
    /// In-memory answers run on the event loop (ListApplications; ListCategories, SyncCategories
    /// and unchanged registrations while the categories are cached); writes and store reads
    /// (GetTags) run in tasks that await the store.
    public func register(on server: some MethodRegistrar) {
        let admin = self.admin, devices = self.devices, categories = self.categories
        server.addAsync(Methods.Admin.createApplication) { context, request async throws(RPCError) in
            try await admin.createApplication(request, caller: Caller(metadata: context))
        }
        server.addAsync(Methods.Admin.updateApplication) { context, request async throws(RPCError) in
            try await admin.updateApplication(request, caller: Caller(metadata: context))
        }
        server.addOnLoop(Methods.Admin.listApplications) { context, request throws(RPCError) in
            try admin.listApplications(request, caller: Caller(metadata: context))
        }
        server.addOnLoopWithFallback(
            Methods.Devices.registerDevice,
            fast: { _, request throws(RPCError) in try devices.registerDeviceIfUnchanged(request) },
            slow: { _, request async throws(RPCError) in try await devices.registerDevice(request) })
        server.addRawFastPath(Methods.Devices.registerDevice) { devices.registerDeviceFastPath($0) }
        server.addRawFastPath(Methods.Devices.syncCategories) { devices.syncCategoriesFastPath($0) }
        server.addAsync(Methods.Devices.unregisterDevice) { _, request async throws(RPCError) in
            try await devices.unregisterDevice(request)
        }
        server.addAsync(Methods.Devices.setTags) { _, request async throws(RPCError) in
            try await devices.setTags(request)
        }
        server.addAsync(Methods.Devices.getTags) { _, request async throws(RPCError) in
            try await devices.getTags(request)
        }
        server.addOnLoopWithFallback(
            Methods.Devices.syncCategories,
            fast: { _, request throws(RPCError) in try devices.syncCategoriesIfCached(request) },
            slow: { _, request async throws(RPCError) in try await devices.syncCategories(request) })
        server.addAsync(Methods.Categories.upsertCategory) { context, request async throws(RPCError) in
            try await categories.upsertCategory(request, caller: Caller(metadata: context))
        }
        server.addAsync(Methods.Categories.deleteCategory) { context, request async throws(RPCError) in
            try await categories.deleteCategory(request, caller: Caller(metadata: context))
        }
        server.addOnLoopWithFallback(
            Methods.Categories.listCategories,
            fast: { context, request throws(RPCError) in try categories.listCategoriesIfCached(request, caller: Caller(metadata: context)) },
            slow: { context, request async throws(RPCError) in try await categories.listCategories(request, caller: Caller(metadata: context)) })
        messages.register(on: server)
    }

    /// Whether the store can take writes (`StoreHealth.serving`): what Health/Check reports.
    /// Never waits.
    public var isServing: Bool { store.health == .serving }

    /// Finishes queued writes and closes the store; call after the server stopped.
    public func close() {
        messages.pipeline.requestStop()
        store.close()
    }
}
