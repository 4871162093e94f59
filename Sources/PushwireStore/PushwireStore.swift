/// Everything the Pushwire service keeps durably about applications, devices with their tags,
/// and categories: the contract every engine meets (SQLite in a data directory, PostgreSQL
/// shared by several servers). The service talks only to this protocol and `MessageStore`;
/// `pushwired` chooses and builds the engine. `Tests/PushwireStoreContractTests` checks every
/// promise below against every engine.
///
/// Promises common to every requirement:
/// - **Durable acknowledgement.** A write returns (or calls its completion with success) only
///   once its change is durable: it survives a crash of the process or the machine.
/// - **Atomic.** A write that throws changed nothing; one that returns changed everything it says.
/// - **Read your writes.** A read that starts after a write returned sees that write.
/// - **Reads are async** and may wait on the engine (a network round trip): never call them on
///   an event loop or while holding a lock; what must be answered on a loop comes from a cache
///   the service owns.
/// - **Errors** are `StoreError`s: the domain cases named on each requirement, or an engine
///   failure (`.unavailable`, `.storageFull`, `.dataLoss`, `.internalError`, `.closed`) from any
///   of them.
/// - No requirement has a default implementation: each engine (and each test double) implements
///   every one of them with its full promise.
public protocol PushwireStore: Sendable {
    /// Creates an application together with its first categories (e.g. YesNo), atomically:
    /// both or neither. `application.id`, `application.categoriesVersion` and the categories'
    /// ids are ignored and assigned; ids are unique in the store and grow with creation order.
    /// - Returns: the application as stored (its id assigned, categories version 1).
    /// - Throws: `.conflict` when the code is taken (nothing is created).
    func createApplication(_ application: ApplicationRecord, initialCategories: [CategoryRecord]) async throws(StoreError) -> ApplicationRecord

    /// Changes an application's name, APNs settings or token hash (the fields `update` sets).
    /// - Returns: the application as stored after the change.
    /// - Throws: `.notFound` for an unknown code.
    func updateApplication(code: String, _ update: ApplicationUpdate) async throws(StoreError) -> ApplicationRecord

    /// Every application, in creation order (ascending id).
    func listApplications() async throws(StoreError) -> [ApplicationRecord]

    /// Creates or replaces the device (keyed by application id and hwid, compared byte for
    /// byte) and applies `tags` in order, atomically. A device is never deleted.
    /// - Throws: `.invalidChange` when a tag change cannot apply (incrementing a non-integer
    ///   tag): then neither the device nor any tag changed.
    func upsertDevice(_ device: DeviceRecord, tags: [TagChange]) async throws(StoreError)

    /// `upsertDevice(device, tags: [])` for a caller outside a task (the server's event loop):
    /// the same promise, and `completion` is called exactly once, with nil once the device is
    /// durable or with the error, on any thread; it must be quick. A row that already holds
    /// exactly these values may be left untouched (it is still durable when completion runs).
    /// The call itself never blocks.
    func upsertDevice(_ device: DeviceRecord, completion: @escaping @Sendable (StoreError?) -> Void)

    /// The device, or nil when the application has no device with this hwid.
    func device(applicationID: Int64, hwid: String) async throws(StoreError) -> DeviceRecord?

    /// Clears the device's push token (the device and its tags stay).
    /// - Returns: false when there is no such device (nothing changed).
    func unregisterDevice(applicationID: Int64, hwid: String) async throws(StoreError) -> Bool

    /// Stores the badge the device's app shows now (`Devices/SetBadge`, Pushwoosh's `setBadge`):
    /// the badge a message's increment counts from, until a fan-out step writes the next one.
    /// A registration leaves it as it is.
    /// - Returns: false when there is no such device (nothing changed).
    func setBadge(applicationID: Int64, hwid: String, badge: Int64) async throws(StoreError) -> Bool

    /// Applies tag changes in order, all or nothing.
    /// - Returns: every tag of the device after the change, by name (byte order).
    /// - Throws: `.notFound` for an unknown device, `.invalidChange` to increment a non-integer
    ///   tag; then no tag changed.
    func updateTags(applicationID: Int64, hwid: String, _ changes: [TagChange]) async throws(StoreError) -> [TagRecord]

    /// The device's tags by name (byte order); nil when there is no such device (an existing
    /// device without tags gives []).
    func tags(applicationID: Int64, hwid: String) async throws(StoreError) -> [TagRecord]?

    /// Creates (`category.id` 0: an id is assigned, unique in the store) or replaces a category,
    /// and bumps the application's categories version by one in the same transaction.
    /// - Returns: the category as stored and the new version.
    /// - Throws: `.notFound` (unknown application or category id), `.wrongApplication` (the
    ///   id is another application's), `.conflict` (the name is taken in the application);
    ///   then nothing changed and the version stays.
    func upsertCategory(applicationID: Int64, _ category: CategoryRecord) async throws(StoreError) -> (CategoryRecord, UInt64)

    /// Deletes a category and bumps the application's version by one, atomically.
    /// - Returns: the new version.
    /// - Throws: `.notFound`, `.wrongApplication`; then nothing changed.
    func deleteCategory(applicationID: Int64, categoryID: UInt32) async throws(StoreError) -> UInt64

    /// The application's categories (ascending id) and their version, read in one snapshot: the
    /// list is exactly the one of that version. An unknown application gives none, version 0.
    func categories(applicationID: Int64) async throws(StoreError) -> CategorySet

    /// The change feed: calls `observer` with every change committed through *other* store
    /// objects on the same data (other servers sharing a database), in commit order, each soon
    /// after its COMMIT; changes made through this object are never reported (its caller knows
    /// them). Changes committed after the store opened and before this call are reported at
    /// this call (or collapsed into `.everything` when too many). `.everything` is reported
    /// whenever changes may have been missed (the feed lost its connection and got it back).
    /// `observer` runs on a thread of the engine, one call at a time, and must be quick; a
    /// second call replaces the first observer. An engine whose data only this object can
    /// write (SQLite: one process per data directory) never calls it.
    func observeChanges(_ observer: @escaping @Sendable (StoreChange) -> Void)

    /// Whether writes are expected to succeed now; never waits (see `StoreHealth`).
    var health: StoreHealth { get }

    /// What this store object has written since it was opened.
    var statistics: StoreStatistics { get }

    /// Finishes (and acknowledges) the writes already accepted, then closes the store: later
    /// writes fail with `.closed` and `health` is `.notServing`. Calling it again does nothing.
    func close()
}
