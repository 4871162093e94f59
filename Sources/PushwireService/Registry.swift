import PushwireStore
import PushwireWire

/// The state the registration services share: the store, the application directory, the
/// fingerprints of registered devices, and the admin token's hash.
public final class Registry: Sendable {
    /// Admin actions and delivery summaries for the operator; silent until `log.use(logger)`.
    public let log = OperatorLog()
    let store: any PushwireStore
    let directory: ApplicationDirectory
    let fingerprints: RegistrationFingerprints
    /// Applies other servers' changes to the caches above (the store's change feed).
    let follower: StoreChangeFollower
    private let adminTokenHash: [UInt8]
    /// The digests of the tokens presented lately (every authorized call presents one).
    let tokenDigests = TokenDigests()

    /// Loads the applications of `store` and their categories into memory, so that the calls
    /// answered on the event loop find them there, and follows the store's change feed so that
    /// they stay current when other servers sharing the database change them.
    /// - Parameters:
    ///   - store: the durable store.
    ///   - adminToken: the token the Admin service requires.
    ///   - fingerprintCapacity: how many device fingerprints to keep (see `RegistrationFingerprints`).
    public init(store: any PushwireStore, adminToken: String, fingerprintCapacity: Int = 2_000_000) async throws(StoreError) {
        self.store = store
        let applications = try await store.listApplications()
        self.directory = ApplicationDirectory(applications: applications)
        self.fingerprints = RegistrationFingerprints(capacity: fingerprintCapacity)
        self.adminTokenHash = SHA256.hash(adminToken)
        for application in applications {
            let set = try await store.categories(applicationID: application.id)
            directory.cache(code: application.code, categories: set.categories.map(WireConversions.category), version: set.version)
        }
        // After the first load: the feed reports what other servers committed since the store
        // opened (and so during the load), which is applied again harmlessly.
        let follower = StoreChangeFollower(store: store, directory: directory, fingerprints: fingerprints)
        self.follower = follower
        store.observeChanges { change in follower.receive(change) }
    }

    /// Whether `hash` is the admin token's hash (compared in constant time).
    func isAdminToken(hash: [UInt8]) -> Bool {
        Credentials.constantTimeEqual(hash, adminTokenHash)
    }

    /// Checks the admin token. Ambiguous metadata (two `authorization` entries), no token, or one that is nobody's → UNAUTHENTICATED; an
    /// application's token → PERMISSION_DENIED.
    func authorizeAdmin(_ caller: Caller) throws(RPCError) {
        if let ambiguity = caller.ambiguity { throw RPCError(.unauthenticated, ambiguity) }
        guard let token = caller.bearerToken else {
            throw RPCError(.unauthenticated, "the Admin service needs authorization: Bearer <admin token>")
        }
        let hash = tokenDigests.digest(of: token)
        if Credentials.constantTimeEqual(hash, adminTokenHash) { return }
        if directory.application(tokenHash: hash) != nil {
            throw RPCError(.permissionDenied, "an application's access token cannot call the Admin service")
        }
        throw RPCError(.unauthenticated, "invalid admin token")
    }

    /// The application whose access token the caller presents. Ambiguous metadata, no token, or one that is nobody's
    /// → UNAUTHENTICATED; the admin token, or a token of another application than the one named
    /// in the `application` metadata → PERMISSION_DENIED.
    func authorizeApplication(_ caller: Caller) throws(RPCError) -> ApplicationRecord {
        if let ambiguity = caller.ambiguity { throw RPCError(.unauthenticated, ambiguity) }
        guard let token = caller.bearerToken else {
            throw RPCError(.unauthenticated, "this method needs authorization: Bearer <application access token>")
        }
        let hash = tokenDigests.digest(of: token)
        guard let application = directory.application(tokenHash: hash) else {
            if Credentials.constantTimeEqual(hash, adminTokenHash) {
                throw RPCError(.permissionDenied, "the admin token cannot act for an application; use its access token")
            }
            throw RPCError(.unauthenticated, "invalid access token")
        }
        if let named = caller.applicationCode, named != application.code {
            throw RPCError(.permissionDenied, "the access token does not belong to application \(RPCError.echo(named))")
        }
        return application
    }

    /// The application a device names by code.
    func application(code: String) throws(RPCError) -> ApplicationRecord {
        if code.isEmpty { throw RPCError(.invalidArgument, "application is empty: pass the application code, e.g. A1B2C-3D4E5") }
        guard let application = directory.application(code: code) else {
            throw RPCError(.notFound, "application \(RPCError.echo(code)) not found")
        }
        return application
    }

    /// The application's categories and version from the cache alone: nil when they are not
    /// cached (a change was made and they were not read again yet), for callers on the event
    /// loop, which then hand the call to a task that awaits `categories(code:)`.
    func cachedCategories(code: String) throws(RPCError) -> (categories: [Category], version: UInt64)? {
        switch directory.categories(code: code) {
        case .unknownApplication:
            throw RPCError(.notFound, "application \(code) not found")
        case .known(_, let version, let cached?):
            return (cached, version)
        case .known(_, _, nil):
            return nil
        }
    }

    /// The application's categories and version: from the cache, or read from the store and cached.
    func categories(code: String) async throws(RPCError) -> (categories: [Category], version: UInt64) {
        switch directory.categories(code: code) {
        case .unknownApplication:
            throw RPCError(.notFound, "application \(RPCError.echo(code)) not found")
        case .known(_, let version, let cached?):
            return (cached, version)
        case .known(let applicationID, _, nil):
            let set = try await storeCall { () async throws(StoreError) in try await self.store.categories(applicationID: applicationID) }
            let categories = set.categories.map(WireConversions.category)
            directory.cache(code: code, categories: categories, version: set.version)
            return (categories, set.version)
        }
    }

    /// The application's categories, read from the store when the cached list lacks
    /// `categoryID` (else from the cache): with several servers on one database, a category
    /// created through another server a moment ago may not have reached this one's cache yet
    /// (docs/DEPLOYMENT.md: within 1 s), and a call naming it must not be refused for that.
    func categories(code: String, holding categoryID: UInt32) async throws(RPCError) -> (categories: [Category], version: UInt64) {
        let cached = try await categories(code: code)
        if categoryID == 0 || cached.categories.contains(where: { $0.categoryID == categoryID }) { return cached }
        return try await storedCategories(code: code, newerThan: cached)
    }

    /// The application's categories read from the store now, and cached; `cached` when it is
    /// newer (a change through this server committed meanwhile).
    func storedCategories(code: String, newerThan cached: (categories: [Category], version: UInt64)) async throws(RPCError)
        -> (categories: [Category], version: UInt64) {
        guard let application = directory.application(code: code) else {
            throw RPCError(.notFound, "application \(RPCError.echo(code)) not found")
        }
        let set = try await storeCall { () async throws(StoreError) in try await self.store.categories(applicationID: application.id) }
        let categories = set.categories.map(WireConversions.category)
        directory.cache(code: code, categories: categories, version: set.version)
        return set.version >= cached.version ? (categories, set.version) : cached
    }

    /// Reads the application's categories into the cache after a change, so that the calls
    /// answered on the event loop keep finding them there; a failed read leaves them to be read
    /// by the next caller that needs them.
    func refreshCategories(code: String) async {
        _ = try? await categories(code: code)
    }

    /// The categories version alone, without reading anything.
    func categoriesVersion(code: String) -> UInt64? {
        if case .known(_, let version, _) = directory.categories(code: code) { return version }
        return nil
    }
}
