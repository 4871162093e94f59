// generated — do not edit. Source: Protos/pushwire/v1/admin.proto. Regenerate with Scripts/generate.

import CProtobufC
import PushwireProtoC

/// Which APNs environment an application's tokens belong to.
///
/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and
/// encodes back unchanged.
public enum ApnsEnvironment: RawRepresentable, CaseIterable, Sendable, Hashable {
    /// `APNS_ENVIRONMENT_UNSPECIFIED` (0).
    case unspecified
    /// api.sandbox.push.apple.com: development builds.
    case sandbox
    /// api.push.apple.com: App Store and TestFlight builds.
    case production
    /// A value this version does not know.
    case unrecognized(Int32)

    /// The known values.
    public static let allCases: [ApnsEnvironment] = [.unspecified, .sandbox, .production]

    /// The default: `.unspecified`.
    public init() { self = .unspecified }

    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .sandbox
        case 2: self = .production
        default: self = .unrecognized(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: Int32 {
        switch self {
        case .unspecified: return 0
        case .sandbox: return 1
        case .production: return 2
        case .unrecognized(let value): return value
        }
    }

    /// Equal when the wire values are: `.unrecognized(2)` equals `.production`.
    public static func == (lhs: ApnsEnvironment, rhs: ApnsEnvironment) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// What Pushwire needs to send through APNs with token (JWT) authentication.
public struct ApnsSettings: WireMessage, Hashable {
    /// The 10-character Apple Developer team id (the JWT `iss`).
    public var teamID: String = ""
    /// The 10-character id of the signing key (the JWT `kid`).
    public var keyID: String = ""
    /// The app's bundle id, sent as `apns-topic`.
    public var topic: String = ""
    /// The .p8 signing key (PEM text). Write-only: no call ever returns it.
    public var privateKeyP8: String = ""
    /// Sandbox or production.
    public var environment: ApnsEnvironment = .init()

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        teamID: String = "",
        keyID: String = "",
        topic: String = "",
        privateKeyP8: String = "",
        environment: ApnsEnvironment = .init()
    ) {
        self.teamID = teamID
        self.keyID = keyID
        self.topic = topic
        self.privateKeyP8 = privateKeyP8
        self.environment = environment
    }

    /// `pushwire.v1.ApnsSettings`.
    public static let protoName = "pushwire.v1.ApnsSettings"

    /// protoc-c's descriptor of `pushwire.v1.ApnsSettings`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__ApnsSettings.self, pushwire__v1__apns_settings__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ApnsSettings`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ApnsSettings`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension ApnsSettings: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__ApnsSettings>) {
        teamID = WireLift.string(c.pointee.team_id)
        keyID = WireLift.string(c.pointee.key_id)
        topic = WireLift.string(c.pointee.topic)
        privateKeyP8 = WireLift.string(c.pointee.private_key_p8)
        environment = ApnsEnvironment(rawValue: Int32(truncatingIfNeeded: c.pointee.environment.rawValue))
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__ApnsSettings> {
        let c = arena.message(Pushwire__V1__ApnsSettings.self, pushwire__v1__apns_settings__init)
        c.pointee.team_id = arena.string(teamID)
        c.pointee.key_id = arena.string(keyID)
        c.pointee.topic = arena.string(topic)
        c.pointee.private_key_p8 = arena.string(privateKeyP8)
        c.pointee.environment = .init(rawValue: .init(truncatingIfNeeded: environment.rawValue))
        return c
    }
}

/// What Pushwire needs to send through Firebase Cloud Messaging (HTTP v1 API) to Android devices.
public struct FcmSettings: WireMessage, Hashable {
    /// The Firebase service account's key file (JSON, as the Firebase console downloads it): its
    /// `project_id`, `client_email`, `private_key` (PEM, RSA) and `token_uri` are used. Write-only:
    /// no call ever returns it.
    public var serviceAccountJSON: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        serviceAccountJSON: String = ""
    ) {
        self.serviceAccountJSON = serviceAccountJSON
    }

    /// `pushwire.v1.FcmSettings`.
    public static let protoName = "pushwire.v1.FcmSettings"

    /// protoc-c's descriptor of `pushwire.v1.FcmSettings`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__FcmSettings.self, pushwire__v1__fcm_settings__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.FcmSettings`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.FcmSettings`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension FcmSettings: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__FcmSettings>) {
        serviceAccountJSON = WireLift.string(c.pointee.service_account_json)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__FcmSettings> {
        let c = arena.message(Pushwire__V1__FcmSettings.self, pushwire__v1__fcm_settings__init)
        c.pointee.service_account_json = arena.string(serviceAccountJSON)
        return c
    }
}

/// An application as the admin API shows it.
public struct Application: WireMessage, Hashable {
    /// Pushwire's code for it, e.g. "A1B2C-3D4E5"; devices register with this code.
    public var code: String = ""
    /// The operator's name for it.
    public var name: String = ""
    /// APNs settings with `private_key_p8` always empty; absent when none are set.
    public var apns: ApnsSettings? = nil
    /// Whether a .p8 key is stored.
    public var hasApnsKey: Bool = false
    /// The current version of its categories.
    public var categoriesVersion: UInt64 = 0
    /// When it was created, in seconds since 1970-01-01T00:00:00Z.
    public var createdAt: Int64 = 0
    /// Whether FCM credentials (a service account) are stored.
    public var hasFcmCredentials: Bool = false
    /// The Firebase project id and the service account's e-mail of the stored FCM credentials;
    /// empty without them. The key itself is never returned.
    public var fcmProjectID: String = ""
    /// The `fcm_client_email` field.
    public var fcmClientEmail: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        code: String = "",
        name: String = "",
        apns: ApnsSettings? = nil,
        hasApnsKey: Bool = false,
        categoriesVersion: UInt64 = 0,
        createdAt: Int64 = 0,
        hasFcmCredentials: Bool = false,
        fcmProjectID: String = "",
        fcmClientEmail: String = ""
    ) {
        self.code = code
        self.name = name
        self.apns = apns
        self.hasApnsKey = hasApnsKey
        self.categoriesVersion = categoriesVersion
        self.createdAt = createdAt
        self.hasFcmCredentials = hasFcmCredentials
        self.fcmProjectID = fcmProjectID
        self.fcmClientEmail = fcmClientEmail
    }

    /// `pushwire.v1.Application`.
    public static let protoName = "pushwire.v1.Application"

    /// protoc-c's descriptor of `pushwire.v1.Application`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Application.self, pushwire__v1__application__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Application`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Application`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Application: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Application>) {
        code = WireLift.string(c.pointee.code)
        name = WireLift.string(c.pointee.name)
        apns = WireLift.message(c.pointee.apns)
        hasApnsKey = c.pointee.has_apns_key != 0
        categoriesVersion = c.pointee.categories_version
        createdAt = c.pointee.created_at
        hasFcmCredentials = c.pointee.has_fcm_credentials != 0
        fcmProjectID = WireLift.string(c.pointee.fcm_project_id)
        fcmClientEmail = WireLift.string(c.pointee.fcm_client_email)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Application> {
        let c = arena.message(Pushwire__V1__Application.self, pushwire__v1__application__init)
        c.pointee.code = arena.string(code)
        c.pointee.name = arena.string(name)
        if let value = apns { c.pointee.apns = value.lower(arena) }
        c.pointee.has_apns_key = hasApnsKey ? 1 : 0
        c.pointee.categories_version = categoriesVersion
        c.pointee.created_at = createdAt
        c.pointee.has_fcm_credentials = hasFcmCredentials ? 1 : 0
        c.pointee.fcm_project_id = arena.string(fcmProjectID)
        c.pointee.fcm_client_email = arena.string(fcmClientEmail)
        return c
    }
}

/// The request of `Admin.CreateApplication`.
public struct CreateApplicationRequest: WireMessage, Hashable {
    /// 1–128 bytes.
    public var name: String = ""
    /// Optional: iOS, macOS and Safari devices are sent through APNs with it.
    public var apns: ApnsSettings? = nil
    /// Optional: Android devices are sent through FCM with it. An application with neither
    /// writes its notifications to the file sink.
    public var fcm: FcmSettings? = nil

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        name: String = "",
        apns: ApnsSettings? = nil,
        fcm: FcmSettings? = nil
    ) {
        self.name = name
        self.apns = apns
        self.fcm = fcm
    }

    /// `pushwire.v1.CreateApplicationRequest`.
    public static let protoName = "pushwire.v1.CreateApplicationRequest"

    /// protoc-c's descriptor of `pushwire.v1.CreateApplicationRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__CreateApplicationRequest.self, pushwire__v1__create_application_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CreateApplicationRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CreateApplicationRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension CreateApplicationRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__CreateApplicationRequest>) {
        name = WireLift.string(c.pointee.name)
        apns = WireLift.message(c.pointee.apns)
        fcm = WireLift.message(c.pointee.fcm)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__CreateApplicationRequest> {
        let c = arena.message(Pushwire__V1__CreateApplicationRequest.self, pushwire__v1__create_application_request__init)
        c.pointee.name = arena.string(name)
        if let value = apns { c.pointee.apns = value.lower(arena) }
        if let value = fcm { c.pointee.fcm = value.lower(arena) }
        return c
    }
}

/// The response of `Admin.CreateApplication`.
public struct CreateApplicationResponse: WireMessage, Hashable {
    /// The `application` field.
    public var application: Application? = nil
    /// The access token for the Categories and Messages services. Pushwire keeps only its hash:
    /// store it now.
    public var accessToken: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        application: Application? = nil,
        accessToken: String = ""
    ) {
        self.application = application
        self.accessToken = accessToken
    }

    /// `pushwire.v1.CreateApplicationResponse`.
    public static let protoName = "pushwire.v1.CreateApplicationResponse"

    /// protoc-c's descriptor of `pushwire.v1.CreateApplicationResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__CreateApplicationResponse.self, pushwire__v1__create_application_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CreateApplicationResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CreateApplicationResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension CreateApplicationResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__CreateApplicationResponse>) {
        application = WireLift.message(c.pointee.application)
        accessToken = WireLift.string(c.pointee.access_token)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__CreateApplicationResponse> {
        let c = arena.message(Pushwire__V1__CreateApplicationResponse.self, pushwire__v1__create_application_response__init)
        if let value = application { c.pointee.application = value.lower(arena) }
        c.pointee.access_token = arena.string(accessToken)
        return c
    }
}

/// The request of `Admin.UpdateApplication`.
public struct UpdateApplicationRequest: WireMessage, Hashable {
    /// The application's code.
    public var application: String = ""
    /// A new name; empty keeps the current one.
    public var name: String = ""
    /// New APNs settings replacing the current ones; absent keeps them.
    public var apns: ApnsSettings? = nil
    /// Removes the APNs settings (messages then go to the file sink).
    public var clearApns: Bool = false
    /// Issues a new access token; the old one stops working at once.
    public var rotateAccessToken: Bool = false
    /// New FCM settings (replacing the current ones).
    public var fcm: FcmSettings? = nil
    /// Removes the FCM settings (Android devices are then counted `NoCredentialsForPlatform`).
    public var clearFcm: Bool = false

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        application: String = "",
        name: String = "",
        apns: ApnsSettings? = nil,
        clearApns: Bool = false,
        rotateAccessToken: Bool = false,
        fcm: FcmSettings? = nil,
        clearFcm: Bool = false
    ) {
        self.application = application
        self.name = name
        self.apns = apns
        self.clearApns = clearApns
        self.rotateAccessToken = rotateAccessToken
        self.fcm = fcm
        self.clearFcm = clearFcm
    }

    /// `pushwire.v1.UpdateApplicationRequest`.
    public static let protoName = "pushwire.v1.UpdateApplicationRequest"

    /// protoc-c's descriptor of `pushwire.v1.UpdateApplicationRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__UpdateApplicationRequest.self, pushwire__v1__update_application_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UpdateApplicationRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UpdateApplicationRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension UpdateApplicationRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__UpdateApplicationRequest>) {
        application = WireLift.string(c.pointee.application)
        name = WireLift.string(c.pointee.name)
        apns = WireLift.message(c.pointee.apns)
        clearApns = c.pointee.clear_apns != 0
        rotateAccessToken = c.pointee.rotate_access_token != 0
        fcm = WireLift.message(c.pointee.fcm)
        clearFcm = c.pointee.clear_fcm != 0
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__UpdateApplicationRequest> {
        let c = arena.message(Pushwire__V1__UpdateApplicationRequest.self, pushwire__v1__update_application_request__init)
        c.pointee.application = arena.string(application)
        c.pointee.name = arena.string(name)
        if let value = apns { c.pointee.apns = value.lower(arena) }
        c.pointee.clear_apns = clearApns ? 1 : 0
        c.pointee.rotate_access_token = rotateAccessToken ? 1 : 0
        if let value = fcm { c.pointee.fcm = value.lower(arena) }
        c.pointee.clear_fcm = clearFcm ? 1 : 0
        return c
    }
}

/// The response of `Admin.UpdateApplication`.
public struct UpdateApplicationResponse: WireMessage, Hashable {
    /// The `application` field.
    public var application: Application? = nil
    /// The new access token when `rotate_access_token` was set; empty otherwise.
    public var accessToken: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        application: Application? = nil,
        accessToken: String = ""
    ) {
        self.application = application
        self.accessToken = accessToken
    }

    /// `pushwire.v1.UpdateApplicationResponse`.
    public static let protoName = "pushwire.v1.UpdateApplicationResponse"

    /// protoc-c's descriptor of `pushwire.v1.UpdateApplicationResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__UpdateApplicationResponse.self, pushwire__v1__update_application_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UpdateApplicationResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UpdateApplicationResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension UpdateApplicationResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__UpdateApplicationResponse>) {
        application = WireLift.message(c.pointee.application)
        accessToken = WireLift.string(c.pointee.access_token)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__UpdateApplicationResponse> {
        let c = arena.message(Pushwire__V1__UpdateApplicationResponse.self, pushwire__v1__update_application_response__init)
        if let value = application { c.pointee.application = value.lower(arena) }
        c.pointee.access_token = arena.string(accessToken)
        return c
    }
}

/// The request of `Admin.ListApplications`.
public struct ListApplicationsRequest: WireMessage, Hashable {

    /// The message with every field at its default.
    public init() {}

    /// `pushwire.v1.ListApplicationsRequest`.
    public static let protoName = "pushwire.v1.ListApplicationsRequest"

    /// protoc-c's descriptor of `pushwire.v1.ListApplicationsRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__ListApplicationsRequest.self, pushwire__v1__list_applications_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListApplicationsRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListApplicationsRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension ListApplicationsRequest: CStructBacked {
    init(lifting _: UnsafePointer<Pushwire__V1__ListApplicationsRequest>) {
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__ListApplicationsRequest> {
        let c = arena.message(Pushwire__V1__ListApplicationsRequest.self, pushwire__v1__list_applications_request__init)
        return c
    }
}

/// The response of `Admin.ListApplications`.
public struct ListApplicationsResponse: WireMessage, Hashable {
    /// The `applications` field.
    public var applications: [Application] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        applications: [Application] = []
    ) {
        self.applications = applications
    }

    /// `pushwire.v1.ListApplicationsResponse`.
    public static let protoName = "pushwire.v1.ListApplicationsResponse"

    /// protoc-c's descriptor of `pushwire.v1.ListApplicationsResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__ListApplicationsResponse.self, pushwire__v1__list_applications_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListApplicationsResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListApplicationsResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension ListApplicationsResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__ListApplicationsResponse>) {
        applications = WireLift.messages(c.pointee.n_applications, c.pointee.applications)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__ListApplicationsResponse> {
        let c = arena.message(Pushwire__V1__ListApplicationsResponse.self, pushwire__v1__list_applications_response__init)
        c.pointee.n_applications = applications.count
        c.pointee.applications = arena.messages(applications)
        return c
    }
}
