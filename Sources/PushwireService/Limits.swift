import PushwireStore
import PushwireWire

/// The limits the protocol documents (Protos/pushwire/v1/*.proto), defined once.
public enum Limits {
    /// hwid: 1–128 bytes.
    public static let maxHWIDBytes = 128
    /// The longest FCM service account key file accepted (Firebase's are about 2.3 KiB).
    public static let maxServiceAccountBytes = 16 * 1024
    /// iOS push token: hex, even length, at most 200 characters.
    public static let maxIOSPushTokenCharacters = 200
    /// Other platforms' push tokens (FCM tokens are ~160–250 bytes; web push subscriptions longer).
    public static let maxPushTokenBytes = 4096
    /// Timezone offset: within ±14 hours.
    public static let maxTimezoneSeconds: Int32 = 50_400
    /// user_id: at most 256 bytes.
    public static let maxUserIDBytes = 256
    /// app_version: at most 64 bytes.
    public static let maxAppVersionBytes = 64
    /// Tags one device may hold, and their bytes together (the store enforces both, in the write
    /// that would pass them: RESOURCE_EXHAUSTED).
    public static let maxTagsPerDevice = StoreLimits.maxTagsPerDevice
    public static let maxTagBytesPerDevice = StoreLimits.maxTagBytesPerDevice
    /// Categories per application (the store enforces it at UpsertCategory: RESOURCE_EXHAUSTED).
    public static let maxCategoriesPerApplication = StoreLimits.maxCategoriesPerApplication
    /// The most bytes of a caller's value quoted back in an error message (longer values are cut,
    /// at a character boundary, and end in "…"), so that an error never grows with the request.
    public static let maxEchoedBytes = WireLimits.maxEchoedBytes
    /// Tags (or tag updates) per request.
    public static let maxTagsPerRequest = 64
    /// Tag names: 1–64 bytes.
    public static let maxTagNameBytes = 64
    /// String tag values and list items: at most 256 bytes.
    public static let maxTagStringBytes = 256
    /// List tag values: at most 64 items.
    public static let maxTagListItems = 64
    /// Application names: 1–128 bytes.
    public static let maxApplicationNameBytes = 128
    /// Category names: 1–64 bytes.
    public static let maxCategoryNameBytes = 64
    /// Buttons per category: 1–4 (Apple's default context shows 4).
    public static let maxButtons = 4
    /// Button labels (default and localized) and text-input titles: 1–64 bytes.
    public static let maxLabelBytes = 64
}
