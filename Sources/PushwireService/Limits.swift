/// The limits the protocol documents (Protos/pushwire/v1/*.proto), defined once.
public enum Limits {
    /// hwid: 1–128 bytes.
    public static let maxHWIDBytes = 128
    /// iOS push token: hex, even length, at most 200 characters.
    public static let maxIOSPushTokenCharacters = 200
    /// Other platforms' push tokens (FCM tokens are ~160–250 bytes; web push subscriptions longer).
    public static let maxPushTokenBytes = 4096
    /// Timezone offset: within ±14 hours.
    public static let maxTimezoneSeconds: Int32 = 50_400
    /// user_id and app_version.
    public static let maxUserIDBytes = 256
    public static let maxAppVersionBytes = 64
    /// Tags per request, tag name bytes, string value bytes, list items.
    public static let maxTagsPerRequest = 64
    public static let maxTagNameBytes = 64
    public static let maxTagStringBytes = 256
    public static let maxTagListItems = 64
    /// Application names: 1–128 bytes.
    public static let maxApplicationNameBytes = 128
    /// Category names: 1–64 bytes; 1–4 buttons; labels 1–64 bytes.
    public static let maxCategoryNameBytes = 64
    public static let maxButtons = 4
    public static let maxLabelBytes = 64
}
