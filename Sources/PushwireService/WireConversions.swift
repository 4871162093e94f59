import PushwireAPNs
import PushwireStore
import PushwireWire

/// Store records to and from the generated wire messages: the one place that knows both.
enum WireConversions {
    /// The Pushwoosh code of a device type; nil for unspecified or unknown values.
    static func deviceTypeCode(_ type: DeviceType) -> Int32? {
        switch type {
        case .unspecified, .unrecognized: nil
        default: type.rawValue
        }
    }

    static func describe(_ type: DeviceType) -> String { "\(type.rawValue)" }

    static let defaultBehavior: Int32 = 1
    static let textInputBehavior: Int32 = 2

    /// The stored behavior number; unspecified reads as a plain button, unknown values as nil.
    static func behaviorCode(_ behavior: ButtonBehavior) -> Int32? {
        switch behavior {
        case .unspecified, .default: defaultBehavior
        case .textInput: textInputBehavior
        case .unrecognized: nil
        }
    }

    static func category(_ record: CategoryRecord) -> Category {
        var category = Category()
        category.categoryID = record.id
        category.name = record.name
        category.buttons = record.buttons.map(button)
        return category
    }

    static func button(_ record: ButtonRecord) -> Button {
        var button = Button()
        button.id = record.id
        button.label = record.label
        button.localizedLabels = record.localizedLabels.map {
            var text = LocalizedText()
            text.language = $0.language
            text.text = $0.text
            return text
        }
        button.destructive = record.destructive
        button.startApplication = record.startApplication
        button.authenticationRequired = record.authenticationRequired
        button.behavior = record.behavior == textInputBehavior ? .textInput : .default
        button.textInputButtonTitle = record.textInputButtonTitle
        button.textInputPlaceholder = record.textInputPlaceholder
        return button
    }

    static func tag(_ record: TagRecord) -> Tag {
        var value = TagValue()
        switch record.value {
        case .string(let s): value.kind = .stringValue(s)
        case .int(let i): value.kind = .intValue(i)
        case .bool(let b): value.kind = .boolValue(b)
        case .date(let d): value.kind = .dateValue(d)
        case .list(let items):
            var list = StringList()
            list.values = items
            value.kind = .listValue(list)
        }
        var tag = Tag()
        tag.name = record.name
        tag.value = value
        return tag
    }

    /// The application as the admin API shows it: never with the .p8 key.
    static func application(_ record: ApplicationRecord) -> Application {
        var application = Application()
        application.code = record.code
        application.name = record.name
        application.categoriesVersion = record.categoriesVersion
        application.createdAt = record.createdAt
        if let apns = record.apns {
            var settings = ApnsSettings()
            settings.teamID = apns.teamID
            settings.keyID = apns.keyID
            settings.topic = apns.topic
            settings.environment = apns.environment == 2 ? .production : .sandbox
            application.apns = settings
            application.hasApnsKey = !apns.privateKeyP8.isEmpty
        }
        // The stored file was checked when it was stored; the key is never shown.
        if let json = record.fcmServiceAccount {
            application.hasFcmCredentials = true
            if let account = try? FCMServiceAccount(json: json) {
                application.fcmProjectID = account.projectID
                application.fcmClientEmail = account.clientEmail
            }
        }
        return application
    }

    /// Checks FCM settings from a request: the service account's key file must parse and its
    /// key sign RS256. Returns the file's text, stored as it came.
    static func fcm(_ settings: FcmSettings) throws(RPCError) -> String {
        let json = settings.serviceAccountJSON
        if json.utf8.count > Limits.maxServiceAccountBytes {
            throw RPCError(.invalidArgument, "fcm.service_account_json is longer than \(Limits.maxServiceAccountBytes) bytes")
        }
        do {
            _ = try FCMServiceAccount(json: json)
        } catch {
            throw RPCError(.invalidArgument, "fcm.service_account_json: \(error.description)")
        }
        return json
    }

    /// Checks APNs settings from a request. `current` is the stored key, kept when the request
    /// leaves `private_key_p8` empty (so that an operator can change the topic without resending it).
    static func apns(_ settings: ApnsSettings, currentKey: String?) throws(RPCError) -> APNsSettingsRecord {
        func invalid(_ message: String) -> RPCError { RPCError(.invalidArgument, message) }
        if settings.teamID.utf8.count != 10 || !settings.teamID.utf8.allSatisfy(isAlphanumeric) {
            throw invalid("apns.team_id must be the 10-character Apple Developer team id")
        }
        if settings.keyID.utf8.count != 10 || !settings.keyID.utf8.allSatisfy(isAlphanumeric) {
            throw invalid("apns.key_id must be the 10-character id of the signing key")
        }
        if settings.topic.isEmpty { throw invalid("apns.topic (the bundle id) is empty") }
        let environment: Int32
        switch settings.environment {
        case .sandbox: environment = 1
        case .production: environment = 2
        default: throw invalid("apns.environment must be SANDBOX or PRODUCTION")
        }
        let key = settings.privateKeyP8.isEmpty ? (currentKey ?? "") : settings.privateKeyP8
        if key.isEmpty { throw invalid("apns.private_key_p8 is empty") }
        // Rejected now, not at send time: the key must parse as the P-256 key APNs tokens need.
        do throws(APNsCredentialError) {
            try APNsCredentials.validate(p8: key)
        } catch {
            throw invalid("apns.private_key_p8: \(error)")
        }
        return APNsSettingsRecord(teamID: settings.teamID, keyID: settings.keyID, topic: settings.topic,
                                  privateKeyP8: key, environment: environment)
    }

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
    }
}
