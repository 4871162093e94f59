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
    /// The store, for the operations endpoints (PushwireServices+Operations.swift).
    var operationsStore: any PushwireStore { store }

    /// Builds the services over `store`, an engine `pushwired` chose and opened, and loads the
    /// applications and their categories; the services close the store in `close()`.
    /// - Parameters:
    ///   - gateways: what deliveries go through — the sink of applications without push
    ///     credentials and how APNs and FCM gateways are made — built by the caller (`pushwired`,
    ///     the composition root, as it builds the store).
    ///   - delivery: the delivery pipeline's tunables (its outbox lease, `--outbox-lease`).
    /// - Throws: `ServicesStartupError` with a message for a person (the store's `StoreError`);
    ///   the store is closed then.
    public init(store: some PushwireStore & MessageStore, adminToken: String, gateways: DeliveryGateways,
                delivery: DeliveryPipeline.Configuration = DeliveryPipeline.Configuration()) async throws(ServicesStartupError) {
        self.store = store
        do {
            registry = try await Registry(store: store, adminToken: adminToken)
        } catch {
            store.close()
            throw .dataDirectory(error)
        }
        admin = AdminService(registry: registry)
        devices = DevicesService(registry: registry)
        categories = CategoriesService(registry: registry)
        messages = MessagesService.start(registry: registry, store: store, gateways: gateways, delivery: delivery)
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
        // Two doors, one decision (`DevicesService.decide`): this handler for requests decoded by
        // protobuf-c, the raw fast path for those read in place.
        server.addCallback(Methods.Devices.registerDevice) { _, request, complete in
            devices.registerDevice(request, complete: complete)
        }
        server.addRawFastPath(Methods.Devices.registerDevice) { devices.registerDeviceFastPath($0) }
        server.addRawFastPath(Methods.Devices.syncCategories) { devices.syncCategoriesFastPath($0) }
        server.addAsync(Methods.Devices.unregisterDevice) { _, request async throws(RPCError) in
            try await devices.unregisterDevice(request)
        }
        server.addAsync(Methods.Devices.setBadge) { _, request async throws(RPCError) in
            try await devices.setBadge(request)
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

    /// Stops the delivery pipeline and waits for it: running fan-outs end after their batch in
    /// hand, and their leases (messages and shared batches) are given up while the store is still
    /// open, so that another server continues them at once instead of after the lease expires.
    /// Call after the server stopped and before `close()`.
    public func stopDelivery() async {
        await messages.pipeline.stop()
    }

    /// Finishes queued writes and closes the store; call after the server stopped (and after
    /// `stopDelivery()`, else the pipeline's leases are left to expire).
    public func close() {
        messages.pipeline.requestStop()
        registry.follower.stop()
        store.close()
    }
}

/// Why the services could not start: the data directory (the sink file is opened by whoever
/// builds the gateways, `pushwired`, and reported there).
public enum ServicesStartupError: Error, Sendable, CustomStringConvertible {
    /// The data directory (or its database) cannot be opened.
    case dataDirectory(StoreError)

    /// What went wrong, for a person: printed as is by `pushwired`.
    public var description: String {
        switch self {
        case .dataDirectory(let error): error.description
        }
    }

    /// What could not be opened, for the log line's message.
    public var what: String {
        switch self {
        case .dataDirectory: "the data directory"
        }
    }
}
