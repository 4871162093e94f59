import PushwireStore
import PushwireWire
import Synchronization

/// Every application in memory: found by code or by access-token hash without touching the store,
/// with its categories cached as wire messages so that a sync answers without a read.
///
/// Applications are few (one per app an operator runs), so all of them are kept. It is updated
/// after each durable write this server makes, and after each change another server sharing the
/// database made (`StoreChangeFollower`, from the store's change feed).
final class ApplicationDirectory: Sendable {
    struct Entry {
        var record: ApplicationRecord
        /// The categories of `record.categoriesVersion`, or nil when they must be read again.
        /// Setting it (set the version first) encodes or drops the answers built from it.
        var categories: [Category]? {
            didSet { encoded = categories.map { EncodedCategoryResponses(categories: $0, version: record.categoriesVersion, applicationID: record.id) } }
        }
        /// The fast paths' answers for `categories`; nil exactly when `categories` is.
        private(set) var encoded: EncodedCategoryResponses?

        init(record: ApplicationRecord, categories: [Category]?) {
            self.record = record
            self.categories = categories
            encoded = categories.map { EncodedCategoryResponses(categories: $0, version: record.categoriesVersion, applicationID: record.id) }
        }
    }

    /// An access token's digest as a dictionary key, hashed as one run of bytes: `[UInt8]`'s own
    /// hashing combines its 32 bytes one by one (585 instructions more a CreateMessage, callgrind).
    private struct TokenHash: Hashable {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private struct State {
        var byCode: [String: Entry] = [:] {
            // Kept apart so that the fast paths' lookup copies one reference, not a whole entry
            // (its record's strings, its categories): that copy was a fifth of a sync's cost.
            // Rebuilt on every change of an entry, which is rare (applications are few).
            didSet {
                encodedByCode = byCode.compactMapValues(\.encoded)
                lastEncoded = nil
            }
        }
        private(set) var encodedByCode: [String: EncodedCategoryResponses] = [:]
        /// The last answer of `encodedResponses`, kept until any entry changes: devices call
        /// for one application after another, and comparing a code with the last one (a small
        /// string: two words) skips hashing it and probing the table, a tenth of a
        /// SyncCategories call (callgrind).
        private(set) var lastEncoded: (code: String, responses: EncodedCategoryResponses)?
        var codeByTokenHash: [TokenHash: String] = [:]
        /// Bumped by every `install`: a list read from the store before it may be older than
        /// what was installed since (`install(_:readAt:)`).
        var installs: UInt64 = 0

        /// `encodedByCode[code]`, through `lastEncoded`.
        mutating func encoded(code: String) -> EncodedCategoryResponses? {
            if let last = lastEncoded, last.code == code { return last.responses }
            guard let responses = encodedByCode[code] else { return nil }
            lastEncoded = (code, responses)
            return responses
        }
    }

    private let state = Mutex(State())
    /// Bumped by every change of any application's categories version: lets a caller holding
    /// `encodedResponses` check with one atomic load that they are still current.
    private let generation = Atomic<UInt64>(0)

    /// The current categories generation (see `encodedResponses`).
    var categoriesGeneration: UInt64 { generation.load(ordering: .acquiring) }

    init(applications: [ApplicationRecord]) {
        for application in applications { install(application) }
    }

    /// Adds or replaces an application (after its creation or update).
    func install(_ record: ApplicationRecord) {
        state.withLock { state in install(record, into: &state) }
    }

    /// How many installs there were so far: read it before reading applications from the store.
    var installCount: UInt64 { state.withLock { $0.installs } }

    /// Installs applications read from the store, unless anything was installed since
    /// `installCount` was `readAt` (then the read may predate it: read again); false then.
    func install(_ records: [ApplicationRecord], readAt: UInt64) -> Bool {
        state.withLock { state in
            guard state.installs == readAt else { return false }
            for record in records { install(record, into: &state) }
            return true
        }
    }

    private func install(_ record: ApplicationRecord, into state: inout State) {
        state.installs &+= 1
        if let old = state.byCode[record.code] {
            state.codeByTokenHash[TokenHash(old.record.accessTokenHash)] = nil
            var entry = old
            let version = max(old.record.categoriesVersion, record.categoriesVersion)
            entry.record = record
            entry.record.categoriesVersion = version
            if version != old.record.categoriesVersion {
                entry.categories = nil
                generation.add(1, ordering: .releasing)
            }
            state.byCode[record.code] = entry
        } else {
            state.byCode[record.code] = Entry(record: record, categories: nil)
        }
        state.codeByTokenHash[TokenHash(record.accessTokenHash)] = record.code
    }

    /// The application with this code.
    func application(code: String) -> ApplicationRecord? {
        state.withLock { $0.byCode[code]?.record }
    }

    /// The code of the application with this internal id.
    func code(applicationID: Int64) -> String? {
        state.withLock { state in state.byCode.values.first { $0.record.id == applicationID }?.record.code }
    }

    /// The application whose access token hashes to `hash`.
    func application(tokenHash hash: [UInt8]) -> ApplicationRecord? {
        state.withLock { state in state.codeByTokenHash[TokenHash(hash)].flatMap { state.byCode[$0]?.record } }
    }

    /// Every application, in creation order.
    func all() -> [ApplicationRecord] {
        state.withLock { $0.byCode.values.map(\.record) }.sorted { $0.id < $1.id }
    }

    /// What the cache knows of the application's categories.
    enum CachedCategories {
        case unknownApplication
        /// The current version and, when cached, the list.
        case known(applicationID: Int64, version: UInt64, categories: [Category]?)
    }

    func categories(code: String) -> CachedCategories {
        state.withLock { state in
            guard let entry = state.byCode[code] else { return .unknownApplication }
            return .known(applicationID: entry.record.id, version: entry.record.categoriesVersion, categories: entry.categories)
        }
    }

    /// The encoded category answers of the application with this code, when its categories are
    /// cached (nil for an unknown application too: the regular path answers that). Read
    /// `categoriesGeneration` before: while it stays the same, the answers stay current.
    func encodedResponses(code: String) -> EncodedCategoryResponses? {
        state.withLock { $0.encoded(code: code) }
    }

    /// Records a new categories version after a durable change: the cached list is dropped.
    func categoriesChanged(code: String, version: UInt64) {
        state.withLock { state in
            guard var entry = state.byCode[code], version > entry.record.categoriesVersion else { return }
            entry.record.categoriesVersion = version
            entry.categories = nil
            state.byCode[code] = entry
            generation.add(1, ordering: .releasing)
        }
    }

    /// Caches a list read from the store, unless a newer change happened since.
    func cache(code: String, categories: [Category], version: UInt64) {
        state.withLock { state in
            guard var entry = state.byCode[code], version >= entry.record.categoriesVersion else { return }
            entry.record.categoriesVersion = version
            entry.categories = categories
            state.byCode[code] = entry
        }
    }
}
