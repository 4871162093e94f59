// generated — do not edit. Source: Protos/pushwire/v1/devices.proto. Regenerate with Scripts/generate.

import CProtobufC
import PushwireProtoC

/// What the user did with a notification.
///
/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and
/// encodes back unchanged.
public enum ActionKind: RawRepresentable, CaseIterable, Sendable, Hashable {
    /// `ACTION_KIND_UNSPECIFIED` (0).
    case unspecified
    /// Opened the notification (tapped its body).
    case `open`
    /// Tapped one of its buttons.
    case button
    /// A value this version does not know.
    case unrecognized(Int32)

    /// The known values.
    public static let allCases: [ActionKind] = [.unspecified, .`open`, .button]

    /// The default: `.unspecified`.
    public init() { self = .unspecified }

    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .`open`
        case 2: self = .button
        default: self = .unrecognized(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: Int32 {
        switch self {
        case .unspecified: return 0
        case .`open`: return 1
        case .button: return 2
        case .unrecognized(let value): return value
        }
    }

    /// Equal when the wire values are: `.unrecognized(2)` equals `.button`.
    public static func == (lhs: ActionKind, rhs: ActionKind) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// The request of `Devices.RegisterDevice`.
public struct RegisterDeviceRequest: WireMessage, Hashable {
    /// The application's code, e.g. "A1B2C-3D4E5".
    public var application: String = ""
    /// The device's hardware id, unique within the application; 1–128 bytes.
    public var hwid: String = ""
    /// The platform's push token; for iOS the APNs token in hex (even length, at most 200 chars).
    public var pushToken: String = ""
    /// The platform, with Pushwoosh's codes.
    public var deviceType: DeviceType = .init()
    /// ISO-639-1 language code, e.g. "en"; empty means unknown (defaults are used).
    public var language: String = ""
    /// Offset from UTC in seconds, within ±50400.
    public var timezone: Int32 = 0
    /// The application's own id for the user; empty when unknown.
    public var userID: String = ""
    /// The application's version, e.g. "2.4.1".
    public var appVersion: String = ""
    /// Tags to set with the registration.
    public var tags: [Tag] = []
    /// The categories version the device already holds; when it matches, the response carries no
    /// categories. 0 means none.
    public var knownCategoriesVersion: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        application: String = "",
        hwid: String = "",
        pushToken: String = "",
        deviceType: DeviceType = .init(),
        language: String = "",
        timezone: Int32 = 0,
        userID: String = "",
        appVersion: String = "",
        tags: [Tag] = [],
        knownCategoriesVersion: UInt64 = 0
    ) {
        self.application = application
        self.hwid = hwid
        self.pushToken = pushToken
        self.deviceType = deviceType
        self.language = language
        self.timezone = timezone
        self.userID = userID
        self.appVersion = appVersion
        self.tags = tags
        self.knownCategoriesVersion = knownCategoriesVersion
    }

    /// `pushwire.v1.RegisterDeviceRequest`.
    public static let protoName = "pushwire.v1.RegisterDeviceRequest"

    /// protoc-c's descriptor of `pushwire.v1.RegisterDeviceRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__RegisterDeviceRequest.self, pushwire__v1__register_device_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.RegisterDeviceRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.RegisterDeviceRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension RegisterDeviceRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__RegisterDeviceRequest>) {
        application = WireLift.string(c.pointee.application)
        hwid = WireLift.string(c.pointee.hwid)
        pushToken = WireLift.string(c.pointee.push_token)
        deviceType = DeviceType(rawValue: Int32(truncatingIfNeeded: c.pointee.device_type.rawValue))
        language = WireLift.string(c.pointee.language)
        timezone = c.pointee.timezone
        userID = WireLift.string(c.pointee.user_id)
        appVersion = WireLift.string(c.pointee.app_version)
        tags = WireLift.messages(c.pointee.n_tags, c.pointee.tags)
        knownCategoriesVersion = c.pointee.known_categories_version
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__RegisterDeviceRequest> {
        let c = arena.message(Pushwire__V1__RegisterDeviceRequest.self, pushwire__v1__register_device_request__init)
        c.pointee.application = arena.string(application)
        c.pointee.hwid = arena.string(hwid)
        c.pointee.push_token = arena.string(pushToken)
        c.pointee.device_type = .init(rawValue: .init(truncatingIfNeeded: deviceType.rawValue))
        c.pointee.language = arena.string(language)
        c.pointee.timezone = timezone
        c.pointee.user_id = arena.string(userID)
        c.pointee.app_version = arena.string(appVersion)
        c.pointee.n_tags = tags.count
        c.pointee.tags = arena.messages(tags)
        c.pointee.known_categories_version = knownCategoriesVersion
        return c
    }
}

/// The response of `Devices.RegisterDevice`.
public struct RegisterDeviceResponse: WireMessage, Hashable {
    /// The application's categories (empty when `known_categories_version` matched).
    public var iosCategories: [Category] = []
    /// The version the device now holds.
    public var categoriesVersion: UInt64 = 0
    /// True when `known_categories_version` matched and `ios_categories` was left empty.
    public var categoriesNotModified: Bool = false

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        iosCategories: [Category] = [],
        categoriesVersion: UInt64 = 0,
        categoriesNotModified: Bool = false
    ) {
        self.iosCategories = iosCategories
        self.categoriesVersion = categoriesVersion
        self.categoriesNotModified = categoriesNotModified
    }

    /// `pushwire.v1.RegisterDeviceResponse`.
    public static let protoName = "pushwire.v1.RegisterDeviceResponse"

    /// protoc-c's descriptor of `pushwire.v1.RegisterDeviceResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__RegisterDeviceResponse.self, pushwire__v1__register_device_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.RegisterDeviceResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.RegisterDeviceResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension RegisterDeviceResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__RegisterDeviceResponse>) {
        iosCategories = WireLift.messages(c.pointee.n_ios_categories, c.pointee.ios_categories)
        categoriesVersion = c.pointee.categories_version
        categoriesNotModified = c.pointee.categories_not_modified != 0
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__RegisterDeviceResponse> {
        let c = arena.message(Pushwire__V1__RegisterDeviceResponse.self, pushwire__v1__register_device_response__init)
        c.pointee.n_ios_categories = iosCategories.count
        c.pointee.ios_categories = arena.messages(iosCategories)
        c.pointee.categories_version = categoriesVersion
        c.pointee.categories_not_modified = categoriesNotModified ? 1 : 0
        return c
    }
}

/// The request of `Devices.UnregisterDevice`.
public struct UnregisterDeviceRequest: WireMessage, Hashable {
    /// The `application` field.
    public var application: String = ""
    /// The `hwid` field.
    public var hwid: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        application: String = "",
        hwid: String = ""
    ) {
        self.application = application
        self.hwid = hwid
    }

    /// `pushwire.v1.UnregisterDeviceRequest`.
    public static let protoName = "pushwire.v1.UnregisterDeviceRequest"

    /// protoc-c's descriptor of `pushwire.v1.UnregisterDeviceRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__UnregisterDeviceRequest.self, pushwire__v1__unregister_device_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UnregisterDeviceRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UnregisterDeviceRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension UnregisterDeviceRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__UnregisterDeviceRequest>) {
        application = WireLift.string(c.pointee.application)
        hwid = WireLift.string(c.pointee.hwid)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__UnregisterDeviceRequest> {
        let c = arena.message(Pushwire__V1__UnregisterDeviceRequest.self, pushwire__v1__unregister_device_request__init)
        c.pointee.application = arena.string(application)
        c.pointee.hwid = arena.string(hwid)
        return c
    }
}

/// The response of `Devices.UnregisterDevice`.
public struct UnregisterDeviceResponse: WireMessage, Hashable {

    /// The message with every field at its default.
    public init() {}

    /// `pushwire.v1.UnregisterDeviceResponse`.
    public static let protoName = "pushwire.v1.UnregisterDeviceResponse"

    /// protoc-c's descriptor of `pushwire.v1.UnregisterDeviceResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__UnregisterDeviceResponse.self, pushwire__v1__unregister_device_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UnregisterDeviceResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UnregisterDeviceResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension UnregisterDeviceResponse: CStructBacked {
    init(lifting _: UnsafePointer<Pushwire__V1__UnregisterDeviceResponse>) {
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__UnregisterDeviceResponse> {
        let c = arena.message(Pushwire__V1__UnregisterDeviceResponse.self, pushwire__v1__unregister_device_response__init)
        return c
    }
}

/// One change to one tag.
public struct TagUpdate: WireMessage, Hashable {
    /// The tag's name.
    public var name: String = ""
    /// The `operation` oneof: at most one of its fields is set.
    public var operation: Operation? = nil

    /// The fields of the `operation` oneof.
    public enum Operation: Sendable, Hashable {
        /// Sets the tag to this value.
        case set(TagValue)
        /// Adds this amount to an integer tag (a missing tag counts as 0).
        case increment(Int64)
        /// Removes the tag.
        case remove(Bool)
    }

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        name: String = "",
        operation: Operation? = nil
    ) {
        self.name = name
        self.operation = operation
    }

    /// `pushwire.v1.TagUpdate`.
    public static let protoName = "pushwire.v1.TagUpdate"

    /// protoc-c's descriptor of `pushwire.v1.TagUpdate`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__TagUpdate.self, pushwire__v1__tag_update__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TagUpdate`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TagUpdate`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension TagUpdate: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__TagUpdate>) {
        name = WireLift.string(c.pointee.name)
        switch c.pointee.operation_case.rawValue {
        case 2:
            if let value: TagValue = WireLift.message(c.pointee.set) { operation = .set(value) }
        case 3:
            operation = .increment(c.pointee.increment)
        case 4:
            operation = .remove(c.pointee.remove != 0)
        default:
            operation = nil
        }
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__TagUpdate> {
        let c = arena.message(Pushwire__V1__TagUpdate.self, pushwire__v1__tag_update__init)
        c.pointee.name = arena.string(name)
        switch operation {
        case .set(let value)?:
            c.pointee.operation_case = .init(rawValue: 2)
            c.pointee.set = value.lower(arena)
        case .increment(let value)?:
            c.pointee.operation_case = .init(rawValue: 3)
            c.pointee.increment = value
        case .remove(let value)?:
            c.pointee.operation_case = .init(rawValue: 4)
            c.pointee.remove = value ? 1 : 0
        case nil:
            break
        }
        return c
    }
}

/// The request of `Devices.SetTags`.
public struct SetTagsRequest: WireMessage, Hashable {
    /// The `application` field.
    public var application: String = ""
    /// The `hwid` field.
    public var hwid: String = ""
    /// Applied in order, all or nothing; at most 64.
    public var updates: [TagUpdate] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        application: String = "",
        hwid: String = "",
        updates: [TagUpdate] = []
    ) {
        self.application = application
        self.hwid = hwid
        self.updates = updates
    }

    /// `pushwire.v1.SetTagsRequest`.
    public static let protoName = "pushwire.v1.SetTagsRequest"

    /// protoc-c's descriptor of `pushwire.v1.SetTagsRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__SetTagsRequest.self, pushwire__v1__set_tags_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SetTagsRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SetTagsRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension SetTagsRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__SetTagsRequest>) {
        application = WireLift.string(c.pointee.application)
        hwid = WireLift.string(c.pointee.hwid)
        updates = WireLift.messages(c.pointee.n_updates, c.pointee.updates)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__SetTagsRequest> {
        let c = arena.message(Pushwire__V1__SetTagsRequest.self, pushwire__v1__set_tags_request__init)
        c.pointee.application = arena.string(application)
        c.pointee.hwid = arena.string(hwid)
        c.pointee.n_updates = updates.count
        c.pointee.updates = arena.messages(updates)
        return c
    }
}

/// The response of `Devices.SetTags`.
public struct SetTagsResponse: WireMessage, Hashable {
    /// The device's tags after the change, by name.
    public var tags: [Tag] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        tags: [Tag] = []
    ) {
        self.tags = tags
    }

    /// `pushwire.v1.SetTagsResponse`.
    public static let protoName = "pushwire.v1.SetTagsResponse"

    /// protoc-c's descriptor of `pushwire.v1.SetTagsResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__SetTagsResponse.self, pushwire__v1__set_tags_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SetTagsResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SetTagsResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension SetTagsResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__SetTagsResponse>) {
        tags = WireLift.messages(c.pointee.n_tags, c.pointee.tags)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__SetTagsResponse> {
        let c = arena.message(Pushwire__V1__SetTagsResponse.self, pushwire__v1__set_tags_response__init)
        c.pointee.n_tags = tags.count
        c.pointee.tags = arena.messages(tags)
        return c
    }
}

/// The request of `Devices.GetTags`.
public struct GetTagsRequest: WireMessage, Hashable {
    /// The `application` field.
    public var application: String = ""
    /// The `hwid` field.
    public var hwid: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        application: String = "",
        hwid: String = ""
    ) {
        self.application = application
        self.hwid = hwid
    }

    /// `pushwire.v1.GetTagsRequest`.
    public static let protoName = "pushwire.v1.GetTagsRequest"

    /// protoc-c's descriptor of `pushwire.v1.GetTagsRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__GetTagsRequest.self, pushwire__v1__get_tags_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetTagsRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetTagsRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension GetTagsRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__GetTagsRequest>) {
        application = WireLift.string(c.pointee.application)
        hwid = WireLift.string(c.pointee.hwid)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__GetTagsRequest> {
        let c = arena.message(Pushwire__V1__GetTagsRequest.self, pushwire__v1__get_tags_request__init)
        c.pointee.application = arena.string(application)
        c.pointee.hwid = arena.string(hwid)
        return c
    }
}

/// The response of `Devices.GetTags`.
public struct GetTagsResponse: WireMessage, Hashable {
    /// By name.
    public var tags: [Tag] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        tags: [Tag] = []
    ) {
        self.tags = tags
    }

    /// `pushwire.v1.GetTagsResponse`.
    public static let protoName = "pushwire.v1.GetTagsResponse"

    /// protoc-c's descriptor of `pushwire.v1.GetTagsResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__GetTagsResponse.self, pushwire__v1__get_tags_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetTagsResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetTagsResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension GetTagsResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__GetTagsResponse>) {
        tags = WireLift.messages(c.pointee.n_tags, c.pointee.tags)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__GetTagsResponse> {
        let c = arena.message(Pushwire__V1__GetTagsResponse.self, pushwire__v1__get_tags_response__init)
        c.pointee.n_tags = tags.count
        c.pointee.tags = arena.messages(tags)
        return c
    }
}

/// The request of `Devices.SyncCategories`.
public struct SyncCategoriesRequest: WireMessage, Hashable {
    /// The `application` field.
    public var application: String = ""
    /// The version the device holds; 0 means none.
    public var knownVersion: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        application: String = "",
        knownVersion: UInt64 = 0
    ) {
        self.application = application
        self.knownVersion = knownVersion
    }

    /// `pushwire.v1.SyncCategoriesRequest`.
    public static let protoName = "pushwire.v1.SyncCategoriesRequest"

    /// protoc-c's descriptor of `pushwire.v1.SyncCategoriesRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__SyncCategoriesRequest.self, pushwire__v1__sync_categories_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SyncCategoriesRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SyncCategoriesRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension SyncCategoriesRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__SyncCategoriesRequest>) {
        application = WireLift.string(c.pointee.application)
        knownVersion = c.pointee.known_version
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__SyncCategoriesRequest> {
        let c = arena.message(Pushwire__V1__SyncCategoriesRequest.self, pushwire__v1__sync_categories_request__init)
        c.pointee.application = arena.string(application)
        c.pointee.known_version = knownVersion
        return c
    }
}

/// The response of `Devices.SyncCategories`.
public struct SyncCategoriesResponse: WireMessage, Hashable {
    /// True when `known_version` is current; `categories` is then empty.
    public var notModified: Bool = false
    /// The full current set, when modified.
    public var categories: [Category] = []
    /// The current version.
    public var version: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        notModified: Bool = false,
        categories: [Category] = [],
        version: UInt64 = 0
    ) {
        self.notModified = notModified
        self.categories = categories
        self.version = version
    }

    /// `pushwire.v1.SyncCategoriesResponse`.
    public static let protoName = "pushwire.v1.SyncCategoriesResponse"

    /// protoc-c's descriptor of `pushwire.v1.SyncCategoriesResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__SyncCategoriesResponse.self, pushwire__v1__sync_categories_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SyncCategoriesResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SyncCategoriesResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension SyncCategoriesResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__SyncCategoriesResponse>) {
        notModified = c.pointee.not_modified != 0
        categories = WireLift.messages(c.pointee.n_categories, c.pointee.categories)
        version = c.pointee.version
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__SyncCategoriesResponse> {
        let c = arena.message(Pushwire__V1__SyncCategoriesResponse.self, pushwire__v1__sync_categories_response__init)
        c.pointee.not_modified = notModified ? 1 : 0
        c.pointee.n_categories = categories.count
        c.pointee.categories = arena.messages(categories)
        c.pointee.version = version
        return c
    }
}

/// The request of `Devices.TrackAction`.
public struct TrackActionRequest: WireMessage, Hashable {
    /// The `application` field.
    public var application: String = ""
    /// The `hwid` field.
    public var hwid: String = ""
    /// The message code from the payload.
    public var messageCode: String = ""
    /// An open or a button tap.
    public var kind: ActionKind = .init()
    /// For a button tap: the category of the notification.
    public var categoryID: UInt32 = 0
    /// For a button tap: the button id (the action identifier, as a number).
    public var buttonID: UInt32 = 0
    /// For a text-input button: what the user typed.
    public var textInput: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        application: String = "",
        hwid: String = "",
        messageCode: String = "",
        kind: ActionKind = .init(),
        categoryID: UInt32 = 0,
        buttonID: UInt32 = 0,
        textInput: String = ""
    ) {
        self.application = application
        self.hwid = hwid
        self.messageCode = messageCode
        self.kind = kind
        self.categoryID = categoryID
        self.buttonID = buttonID
        self.textInput = textInput
    }

    /// `pushwire.v1.TrackActionRequest`.
    public static let protoName = "pushwire.v1.TrackActionRequest"

    /// protoc-c's descriptor of `pushwire.v1.TrackActionRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__TrackActionRequest.self, pushwire__v1__track_action_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TrackActionRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TrackActionRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension TrackActionRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__TrackActionRequest>) {
        application = WireLift.string(c.pointee.application)
        hwid = WireLift.string(c.pointee.hwid)
        messageCode = WireLift.string(c.pointee.message_code)
        kind = ActionKind(rawValue: Int32(truncatingIfNeeded: c.pointee.kind.rawValue))
        categoryID = c.pointee.category_id
        buttonID = c.pointee.button_id
        textInput = WireLift.string(c.pointee.text_input)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__TrackActionRequest> {
        let c = arena.message(Pushwire__V1__TrackActionRequest.self, pushwire__v1__track_action_request__init)
        c.pointee.application = arena.string(application)
        c.pointee.hwid = arena.string(hwid)
        c.pointee.message_code = arena.string(messageCode)
        c.pointee.kind = .init(rawValue: .init(truncatingIfNeeded: kind.rawValue))
        c.pointee.category_id = categoryID
        c.pointee.button_id = buttonID
        c.pointee.text_input = arena.string(textInput)
        return c
    }
}

/// The response of `Devices.TrackAction`.
public struct TrackActionResponse: WireMessage, Hashable {
    /// False when this action was already recorded (a retried report).
    public var recorded: Bool = false

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        recorded: Bool = false
    ) {
        self.recorded = recorded
    }

    /// `pushwire.v1.TrackActionResponse`.
    public static let protoName = "pushwire.v1.TrackActionResponse"

    /// protoc-c's descriptor of `pushwire.v1.TrackActionResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__TrackActionResponse.self, pushwire__v1__track_action_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TrackActionResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TrackActionResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension TrackActionResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__TrackActionResponse>) {
        recorded = c.pointee.recorded != 0
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__TrackActionResponse> {
        let c = arena.message(Pushwire__V1__TrackActionResponse.self, pushwire__v1__track_action_response__init)
        c.pointee.recorded = recorded ? 1 : 0
        return c
    }
}

/// The request of `Devices.SetBadge`.
public struct SetBadgeRequest: WireMessage, Hashable {
    /// The `application` field.
    public var application: String = ""
    /// The `hwid` field.
    public var hwid: String = ""
    /// The number the app's icon shows now (0 clears it).
    public var badge: UInt32 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        application: String = "",
        hwid: String = "",
        badge: UInt32 = 0
    ) {
        self.application = application
        self.hwid = hwid
        self.badge = badge
    }

    /// `pushwire.v1.SetBadgeRequest`.
    public static let protoName = "pushwire.v1.SetBadgeRequest"

    /// protoc-c's descriptor of `pushwire.v1.SetBadgeRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__SetBadgeRequest.self, pushwire__v1__set_badge_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SetBadgeRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SetBadgeRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension SetBadgeRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__SetBadgeRequest>) {
        application = WireLift.string(c.pointee.application)
        hwid = WireLift.string(c.pointee.hwid)
        badge = c.pointee.badge
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__SetBadgeRequest> {
        let c = arena.message(Pushwire__V1__SetBadgeRequest.self, pushwire__v1__set_badge_request__init)
        c.pointee.application = arena.string(application)
        c.pointee.hwid = arena.string(hwid)
        c.pointee.badge = badge
        return c
    }
}

/// The response of `Devices.SetBadge`.
public struct SetBadgeResponse: WireMessage, Hashable {

    /// The message with every field at its default.
    public init() {}

    /// `pushwire.v1.SetBadgeResponse`.
    public static let protoName = "pushwire.v1.SetBadgeResponse"

    /// protoc-c's descriptor of `pushwire.v1.SetBadgeResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__SetBadgeResponse.self, pushwire__v1__set_badge_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SetBadgeResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.SetBadgeResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension SetBadgeResponse: CStructBacked {
    init(lifting _: UnsafePointer<Pushwire__V1__SetBadgeResponse>) {
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__SetBadgeResponse> {
        let c = arena.message(Pushwire__V1__SetBadgeResponse.self, pushwire__v1__set_badge_response__init)
        return c
    }
}
