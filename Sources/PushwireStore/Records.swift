/// APNs token-authentication settings of an application, as stored.
public struct APNsSettingsRecord: Sendable, Equatable {
    /// The Apple Developer team id (JWT `iss`).
    public var teamID: String
    /// The signing key's id (JWT `kid`).
    public var keyID: String
    /// The bundle id, sent as `apns-topic`.
    public var topic: String
    /// The .p8 key as PEM text; never returned by the API.
    public var privateKeyP8: String
    /// The environment's wire number (1 sandbox, 2 production).
    public var environment: Int32

    /// Creates settings.
    public init(teamID: String, keyID: String, topic: String, privateKeyP8: String, environment: Int32) {
        self.teamID = teamID
        self.keyID = keyID
        self.topic = topic
        self.privateKeyP8 = privateKeyP8
        self.environment = environment
    }
}

/// An application as stored.
public struct ApplicationRecord: Sendable, Equatable {
    /// The store's internal id; devices and categories refer to it.
    public var id: Int64
    /// The public code, e.g. `A1B2C-3D4E5`.
    public var code: String
    /// The operator's name.
    public var name: String
    /// SHA-256 of the access token; the token itself is never stored.
    public var accessTokenHash: [UInt8]
    /// APNs settings, when set.
    public var apns: APNsSettingsRecord?
    /// The Firebase service account's key file (JSON text) for FCM, when set; never returned by
    /// the API. The service validated it when it was stored.
    public var fcmServiceAccount: String?
    /// The version of the application's categories; bumped by every category change.
    public var categoriesVersion: UInt64
    /// Creation time, seconds since 1970.
    public var createdAt: Int64

    /// Creates a record.
    public init(id: Int64, code: String, name: String, accessTokenHash: [UInt8], apns: APNsSettingsRecord?,
                fcmServiceAccount: String? = nil, categoriesVersion: UInt64, createdAt: Int64) {
        self.id = id
        self.code = code
        self.name = name
        self.accessTokenHash = accessTokenHash
        self.apns = apns
        self.fcmServiceAccount = fcmServiceAccount
        self.categoriesVersion = categoriesVersion
        self.createdAt = createdAt
    }
}

/// A change to an application; `nil` fields keep their value.
public struct ApplicationUpdate: Sendable, Equatable {
    /// A new name.
    public var name: String?
    /// New APNs settings: `.some(nil)` clears them, `nil` keeps them.
    public var apns: APNsSettingsRecord??
    /// A new access token hash (token rotation).
    public var accessTokenHash: [UInt8]?
    /// A new FCM service account (JSON text): `.some(nil)` clears it, `nil` keeps it.
    public var fcmServiceAccount: String??

    /// Creates an update.
    public init(name: String? = nil, apns: APNsSettingsRecord?? = nil, accessTokenHash: [UInt8]? = nil,
                fcmServiceAccount: String?? = nil) {
        self.name = name
        self.apns = apns
        self.accessTokenHash = accessTokenHash
        self.fcmServiceAccount = fcmServiceAccount
    }
}

/// A device as stored, keyed by application and hwid.
public struct DeviceRecord: Sendable, Equatable, Hashable {
    /// The owning application's internal id.
    public var applicationID: Int64
    /// The hardware id, unique within the application.
    public var hwid: String
    /// The push token; empty once unregistered.
    public var pushToken: String
    /// The platform's wire number (Pushwoosh codes).
    public var deviceType: Int32
    /// ISO-639-1 language, or empty.
    public var language: String
    /// UTC offset in seconds.
    public var timezone: Int32
    /// The application's id for the user.
    public var userID: String
    /// The application's version.
    public var appVersion: String

    /// Creates a record.
    public init(applicationID: Int64, hwid: String, pushToken: String, deviceType: Int32, language: String,
                timezone: Int32, userID: String, appVersion: String) {
        self.applicationID = applicationID
        self.hwid = hwid
        self.pushToken = pushToken
        self.deviceType = deviceType
        self.language = language
        self.timezone = timezone
        self.userID = userID
        self.appVersion = appVersion
    }
}

/// The value of a device tag.
public enum TagValueRecord: Sendable, Equatable, Hashable {
    /// A string, at most 256 bytes.
    case string(String)
    /// A signed integer; the only kind that can be incremented.
    case int(Int64)
    /// true or false.
    case bool(Bool)
    /// A list of strings.
    case list([String])
    /// Seconds since 1970-01-01T00:00:00Z.
    case date(Int64)
}

/// A named tag value.
public struct TagRecord: Sendable, Equatable, Hashable {
    /// The tag's name.
    public var name: String
    /// Its value.
    public var value: TagValueRecord

    /// Creates a tag.
    public init(name: String, value: TagValueRecord) {
        self.name = name
        self.value = value
    }
}

/// One change to one tag.
public enum TagChange: Sendable, Equatable, Hashable {
    /// Sets the tag to the value.
    case set(String, TagValueRecord)
    /// Adds to an integer tag (missing counts as 0).
    case increment(String, Int64)
    /// Removes the tag.
    case remove(String)
}

/// A label in one language.
public struct LocalizedTextRecord: Sendable, Equatable, Hashable, Codable {
    /// ISO-639-1 language code.
    public var language: String
    /// The text.
    public var text: String

    /// Creates a label.
    public init(language: String, text: String) {
        self.language = language
        self.text = text
    }
}

/// One action button of a category.
public struct ButtonRecord: Sendable, Equatable, Hashable, Codable {
    /// 0-based, unique within the category; the action identifier devices report.
    public var id: UInt32
    /// The default label.
    public var label: String
    /// Labels in other languages.
    public var localizedLabels: [LocalizedTextRecord]
    /// Shown in red.
    public var destructive: Bool
    /// Brings the application to the foreground.
    public var startApplication: Bool
    /// The device must be unlocked first.
    public var authenticationRequired: Bool
    /// The behavior's wire number (1 default, 2 text input).
    public var behavior: Int32
    /// For text input: the send button's title.
    public var textInputButtonTitle: String
    /// For text input: the text field's placeholder.
    public var textInputPlaceholder: String

    /// Creates a button.
    public init(id: UInt32, label: String, localizedLabels: [LocalizedTextRecord] = [], destructive: Bool = false,
                startApplication: Bool = false, authenticationRequired: Bool = false, behavior: Int32 = 1,
                textInputButtonTitle: String = "", textInputPlaceholder: String = "") {
        self.id = id
        self.label = label
        self.localizedLabels = localizedLabels
        self.destructive = destructive
        self.startApplication = startApplication
        self.authenticationRequired = authenticationRequired
        self.behavior = behavior
        self.textInputButtonTitle = textInputButtonTitle
        self.textInputPlaceholder = textInputPlaceholder
    }
}

/// A category of action buttons.
public struct CategoryRecord: Sendable, Equatable, Hashable {
    /// Assigned by the store (unique across the data directory); 0 for a new category.
    public var id: UInt32
    /// The operator's name, unique in the application.
    public var name: String
    /// 1–4 buttons in display order.
    public var buttons: [ButtonRecord]

    /// Creates a category.
    public init(id: UInt32, name: String, buttons: [ButtonRecord]) {
        self.id = id
        self.name = name
        self.buttons = buttons
    }
}

/// An application's categories with the version they belong to.
public struct CategorySet: Sendable, Equatable {
    /// In category id order.
    public var categories: [CategoryRecord]
    /// The application's categories version.
    public var version: UInt64

    /// Creates a set.
    public init(categories: [CategoryRecord], version: UInt64) {
        self.categories = categories
        self.version = version
    }
}
