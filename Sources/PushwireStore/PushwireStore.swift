/// Everything the Pushwire service keeps durably: applications, devices with their tags, and
/// categories. Handlers talk only to this protocol, so that a second engine (a database shared by
/// several servers) can be added without touching them.
///
/// Writes are `async`: they return once the change is durable. Reads are synchronous and short
/// (an indexed lookup); they never wait behind writes.
public protocol PushwireStore: Sendable {
    /// Creates an application together with its first categories (e.g. YesNo), atomically.
    /// `application.id` and the categories' ids are ignored and assigned.
    /// - Throws: `.conflict` when the code is taken.
    func createApplication(_ application: ApplicationRecord, initialCategories: [CategoryRecord]) async throws(StoreError) -> ApplicationRecord

    /// Changes an application. - Throws: `.notFound` for an unknown code.
    func updateApplication(code: String, _ update: ApplicationUpdate) async throws(StoreError) -> ApplicationRecord

    /// Every application, in creation order.
    func listApplications() throws(StoreError) -> [ApplicationRecord]

    /// Creates or replaces the device (by application and hwid) and applies `tags` to it, atomically.
    func upsertDevice(_ device: DeviceRecord, tags: [TagChange]) async throws(StoreError)

    /// Creates or replaces the device (by application and hwid, without tags), leaving the row
    /// untouched when it already holds exactly these values, and calls `completion` once that is
    /// durable (nil) or failed, on any thread. For callers outside a task (the server's event
    /// loop): it needs no task and no continuation.
    func upsertDevice(_ device: DeviceRecord, completion: @escaping @Sendable (StoreError?) -> Void)

    /// The device, or nil.
    func device(applicationID: Int64, hwid: String) throws(StoreError) -> DeviceRecord?

    /// Clears the device's push token. - Returns: false when there is no such device.
    func unregisterDevice(applicationID: Int64, hwid: String) async throws(StoreError) -> Bool

    /// Applies tag changes in order, all or nothing; returns the tags after, by name.
    /// - Throws: `.notFound` for an unknown device, `.invalidChange` to increment a non-integer tag.
    func updateTags(applicationID: Int64, hwid: String, _ changes: [TagChange]) async throws(StoreError) -> [TagRecord]

    /// The device's tags by name; nil when there is no such device.
    func tags(applicationID: Int64, hwid: String) throws(StoreError) -> [TagRecord]?

    /// Creates (id 0) or replaces a category and bumps the application's categories version in the
    /// same transaction. - Throws: `.notFound`, `.wrongApplication`, `.conflict` (name taken).
    func upsertCategory(applicationID: Int64, _ category: CategoryRecord) async throws(StoreError) -> (CategoryRecord, UInt64)

    /// Deletes a category and bumps the version; returns the new version.
    /// - Throws: `.notFound`, `.wrongApplication`.
    func deleteCategory(applicationID: Int64, categoryID: UInt32) async throws(StoreError) -> UInt64

    /// The application's categories (id order) and their version, read in one snapshot.
    func categories(applicationID: Int64) throws(StoreError) -> CategorySet

    /// What the writer has committed so far.
    var statistics: StoreStatistics { get }

    /// Finishes queued writes and closes the store.
    func close()
}

extension PushwireStore {
    /// The default for engines without a callback path: the async upsert, in a task.
    public func upsertDevice(_ device: DeviceRecord, completion: @escaping @Sendable (StoreError?) -> Void) {
        Task {
            do throws(StoreError) {
                try await upsertDevice(device, tags: [])
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }
}
