import PushwireWire

/// The answers about one application's categories at one version, encoded once: what the raw
/// fast paths of SyncCategories and RegisterDevice send, so a call answered from the cache costs
/// a copy rather than an encoding through the generated wrappers.
///
/// Built by `ApplicationDirectory` whenever it caches a category list and dropped with that list
/// by every category change, so it can never outlive the version it describes. The messages are
/// built exactly as `DevicesService.syncCategories` and `DevicesService.response(for:)` build
/// theirs (`RegistrationFastPathTests` compares them byte for byte).
///
/// A class so that handing it out under the directory's lock copies one reference.
final class EncodedCategoryResponses: Sendable {
    /// The application's id (what a registration stores).
    let applicationID: Int64
    /// The categories version these answers carry.
    let version: UInt64
    /// `SyncCategoriesResponse { not_modified: true, version }`.
    let syncNotModified: [UInt8]
    /// `SyncCategoriesResponse { categories, version }`.
    let syncFull: [UInt8]
    /// `RegisterDeviceResponse { categories_version: version, categories_not_modified: true }`.
    let registerNotModified: [UInt8]
    /// `RegisterDeviceResponse { ios_categories, categories_version }`.
    let registerFull: [UInt8]

    init(categories: [Category], version: UInt64, applicationID: Int64) {
        self.applicationID = applicationID
        self.version = version
        var sync = SyncCategoriesResponse()
        sync.notModified = true
        sync.version = version
        syncNotModified = sync.encode()
        sync = SyncCategoriesResponse()
        sync.categories = categories
        sync.version = version
        syncFull = sync.encode()
        var register = RegisterDeviceResponse()
        register.categoriesVersion = version
        register.categoriesNotModified = true
        registerNotModified = register.encode()
        register = RegisterDeviceResponse()
        register.iosCategories = categories
        register.categoriesVersion = version
        registerFull = register.encode()
    }

    /// The SyncCategories answer for a device holding `knownVersion`.
    func sync(knownVersion: UInt64) -> [UInt8] {
        knownVersion == version ? syncNotModified : syncFull
    }

    /// The RegisterDevice answer for a device holding `knownVersion` (0: none).
    func register(knownVersion: UInt64) -> [UInt8] {
        knownVersion != 0 && knownVersion == version ? registerNotModified : registerFull
    }
}
