// generated — do not edit. Source: Protos/pushwire/v1/common.proto. Regenerate with Scripts/generate.

import CProtobufC
import PushwireProtoC

/// The platform of a device, with Pushwoosh's numeric codes.
///
/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and
/// encodes back unchanged.
public enum DeviceType: RawRepresentable, CaseIterable, Sendable, Hashable {
    /// `DEVICE_TYPE_UNSPECIFIED` (0).
    case unspecified
    /// `DEVICE_TYPE_IOS` (1).
    case ios
    /// `DEVICE_TYPE_ANDROID` (3).
    case android
    /// `DEVICE_TYPE_WINDOWS_PHONE` (5).
    case windowsPhone
    /// `DEVICE_TYPE_MACOS` (7).
    case macos
    /// `DEVICE_TYPE_WINDOWS` (8).
    case windows
    /// `DEVICE_TYPE_AMAZON` (9).
    case amazon
    /// `DEVICE_TYPE_SAFARI` (10).
    case safari
    /// `DEVICE_TYPE_CHROME` (11).
    case chrome
    /// `DEVICE_TYPE_FIREFOX` (12).
    case firefox
    /// `DEVICE_TYPE_EMAIL` (14).
    case email
    /// `DEVICE_TYPE_HUAWEI` (17).
    case huawei
    /// A value this version does not know.
    case unrecognized(Int32)

    /// The known values.
    public static let allCases: [DeviceType] = [.unspecified, .ios, .android, .windowsPhone, .macos, .windows, .amazon, .safari, .chrome, .firefox, .email, .huawei]

    /// The default: `.unspecified`.
    public init() { self = .unspecified }

    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .ios
        case 3: self = .android
        case 5: self = .windowsPhone
        case 7: self = .macos
        case 8: self = .windows
        case 9: self = .amazon
        case 10: self = .safari
        case 11: self = .chrome
        case 12: self = .firefox
        case 14: self = .email
        case 17: self = .huawei
        default: self = .unrecognized(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: Int32 {
        switch self {
        case .unspecified: return 0
        case .ios: return 1
        case .android: return 3
        case .windowsPhone: return 5
        case .macos: return 7
        case .windows: return 8
        case .amazon: return 9
        case .safari: return 10
        case .chrome: return 11
        case .firefox: return 12
        case .email: return 14
        case .huawei: return 17
        case .unrecognized(let value): return value
        }
    }

    /// Equal when the wire values are: `.unrecognized(17)` equals `.huawei`.
    public static func == (lhs: DeviceType, rhs: DeviceType) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// A text in one language.
public struct LocalizedText: WireMessage, Hashable {
    /// ISO-639-1 language code, lower-case, e.g. "en", "fr", "zh".
    public var language: String = ""
    /// The text in that language; non-empty.
    public var text: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        language: String = "",
        text: String = ""
    ) {
        self.language = language
        self.text = text
    }

    /// `pushwire.v1.LocalizedText`.
    public static let protoName = "pushwire.v1.LocalizedText"

    /// protoc-c's descriptor of `pushwire.v1.LocalizedText`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__LocalizedText.self, pushwire__v1__localized_text__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.LocalizedText`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.LocalizedText`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension LocalizedText: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__LocalizedText>) {
        language = WireLift.string(c.pointee.language)
        text = WireLift.string(c.pointee.text)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__LocalizedText> {
        let c = arena.message(Pushwire__V1__LocalizedText.self, pushwire__v1__localized_text__init)
        c.pointee.language = arena.string(language)
        c.pointee.text = arena.string(text)
        return c
    }
}

/// The value of a device tag: one of five kinds.
public struct TagValue: WireMessage, Hashable {
    /// The `kind` oneof: at most one of its fields is set.
    public var kind: Kind? = nil

    /// The fields of the `kind` oneof.
    public enum Kind: Sendable, Hashable {
        /// A string, at most 256 bytes.
        case stringValue(String)
        /// A signed 64-bit integer; the only kind `SetTags` can increment.
        case intValue(Int64)
        /// true or false.
        case boolValue(Bool)
        /// A list of strings, at most 64 items.
        case listValue(StringList)
        /// A date, as seconds since 1970-01-01T00:00:00Z.
        case dateValue(Int64)
    }

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        kind: Kind? = nil
    ) {
        self.kind = kind
    }

    /// `pushwire.v1.TagValue`.
    public static let protoName = "pushwire.v1.TagValue"

    /// protoc-c's descriptor of `pushwire.v1.TagValue`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__TagValue.self, pushwire__v1__tag_value__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TagValue`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TagValue`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension TagValue: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__TagValue>) {
        switch c.pointee.kind_case.rawValue {
        case 1:
            kind = .stringValue(WireLift.string(c.pointee.string_value))
        case 2:
            kind = .intValue(c.pointee.int_value)
        case 3:
            kind = .boolValue(c.pointee.bool_value != 0)
        case 4:
            if let value: StringList = WireLift.message(c.pointee.list_value) { kind = .listValue(value) }
        case 5:
            kind = .dateValue(c.pointee.date_value)
        default:
            kind = nil
        }
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__TagValue> {
        let c = arena.message(Pushwire__V1__TagValue.self, pushwire__v1__tag_value__init)
        switch kind {
        case .stringValue(let value)?:
            c.pointee.kind_case = .init(rawValue: 1)
            c.pointee.string_value = arena.string(value)
        case .intValue(let value)?:
            c.pointee.kind_case = .init(rawValue: 2)
            c.pointee.int_value = value
        case .boolValue(let value)?:
            c.pointee.kind_case = .init(rawValue: 3)
            c.pointee.bool_value = value ? 1 : 0
        case .listValue(let value)?:
            c.pointee.kind_case = .init(rawValue: 4)
            c.pointee.list_value = value.lower(arena)
        case .dateValue(let value)?:
            c.pointee.kind_case = .init(rawValue: 5)
            c.pointee.date_value = value
        case nil:
            break
        }
        return c
    }
}

/// A list of strings (a message so that it can sit in a oneof).
public struct StringList: WireMessage, Hashable {
    /// The `values` field.
    public var values: [String] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        values: [String] = []
    ) {
        self.values = values
    }

    /// `pushwire.v1.StringList`.
    public static let protoName = "pushwire.v1.StringList"

    /// protoc-c's descriptor of `pushwire.v1.StringList`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__StringList.self, pushwire__v1__string_list__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.StringList`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.StringList`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension StringList: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__StringList>) {
        values = WireLift.strings(c.pointee.n_values, c.pointee.values)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__StringList> {
        let c = arena.message(Pushwire__V1__StringList.self, pushwire__v1__string_list__init)
        c.pointee.n_values = values.count
        c.pointee.values = arena.strings(values)
        return c
    }
}

/// A named tag with its value.
public struct Tag: WireMessage, Hashable {
    /// The tag's name: 1–64 bytes, case-sensitive.
    public var name: String = ""
    /// Its value.
    public var value: TagValue? = nil

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        name: String = "",
        value: TagValue? = nil
    ) {
        self.name = name
        self.value = value
    }

    /// `pushwire.v1.Tag`.
    public static let protoName = "pushwire.v1.Tag"

    /// protoc-c's descriptor of `pushwire.v1.Tag`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Tag.self, pushwire__v1__tag__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Tag`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Tag`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Tag: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Tag>) {
        name = WireLift.string(c.pointee.name)
        value = WireLift.message(c.pointee.value)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Tag> {
        let c = arena.message(Pushwire__V1__Tag.self, pushwire__v1__tag__init)
        c.pointee.name = arena.string(name)
        if let value = value { c.pointee.value = value.lower(arena) }
        return c
    }
}
