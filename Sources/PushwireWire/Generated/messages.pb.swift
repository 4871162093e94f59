// generated — do not edit. Source: Protos/pushwire/v1/messages.proto. Regenerate with Scripts/generate.

import CProtobufC
import PushwireProtoC

/// iOS interruption level (`aps.interruption-level`).
///
/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and
/// encodes back unchanged.
public enum InterruptionLevel: RawRepresentable, CaseIterable, Sendable, Hashable {
    /// `INTERRUPTION_LEVEL_UNSPECIFIED` (0).
    case unspecified
    /// `INTERRUPTION_LEVEL_PASSIVE` (1).
    case passive
    /// `INTERRUPTION_LEVEL_ACTIVE` (2).
    case active
    /// `INTERRUPTION_LEVEL_TIME_SENSITIVE` (3).
    case timeSensitive
    /// `INTERRUPTION_LEVEL_CRITICAL` (4).
    case critical
    /// A value this version does not know.
    case unrecognized(Int32)

    /// The known values.
    public static let allCases: [InterruptionLevel] = [.unspecified, .passive, .active, .timeSensitive, .critical]

    /// The default: `.unspecified`.
    public init() { self = .unspecified }

    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .passive
        case 2: self = .active
        case 3: self = .timeSensitive
        case 4: self = .critical
        default: self = .unrecognized(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: Int32 {
        switch self {
        case .unspecified: return 0
        case .passive: return 1
        case .active: return 2
        case .timeSensitive: return 3
        case .critical: return 4
        case .unrecognized(let value): return value
        }
    }

    /// Equal when the wire values are: `.unrecognized(4)` equals `.critical`.
    public static func == (lhs: InterruptionLevel, rhs: InterruptionLevel) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// What kind of APNs push a notification is (`apns-push-type`).
///
/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and
/// encodes back unchanged.
public enum ApnsPushType: RawRepresentable, CaseIterable, Sendable, Hashable {
    /// An alert (the default).
    case unspecified
    /// Shows an alert, plays a sound or badges the icon.
    case alert
    /// Silent: wakes the app in the background (`content-available`), sent at priority 5. It may
    /// carry no content, title, subtitle, badge, sound, category or interruption level.
    case background
    /// A value this version does not know.
    case unrecognized(Int32)

    /// The known values.
    public static let allCases: [ApnsPushType] = [.unspecified, .alert, .background]

    /// The default: `.unspecified`.
    public init() { self = .unspecified }

    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .alert
        case 2: self = .background
        default: self = .unrecognized(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: Int32 {
        switch self {
        case .unspecified: return 0
        case .alert: return 1
        case .background: return 2
        case .unrecognized(let value): return value
        }
    }

    /// Equal when the wire values are: `.unrecognized(2)` equals `.background`.
    public static func == (lhs: ApnsPushType, rhs: ApnsPushType) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// Comparison used by a tag condition.
///
/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and
/// encodes back unchanged.
public enum ConditionOperator: RawRepresentable, CaseIterable, Sendable, Hashable {
    /// `CONDITION_OPERATOR_UNSPECIFIED` (0).
    case unspecified
    /// Tag equals the single value.
    case eq
    /// Tag equals one of the values.
    case `in`
    /// Tag is greater than or equal to the single value (integers and dates).
    case gte
    /// Tag is less than or equal to the single value (integers and dates).
    case lte
    /// Tag lies between the two values, inclusive (integers and dates).
    case between
    /// A value this version does not know.
    case unrecognized(Int32)

    /// The known values.
    public static let allCases: [ConditionOperator] = [.unspecified, .eq, .`in`, .gte, .lte, .between]

    /// The default: `.unspecified`.
    public init() { self = .unspecified }

    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .eq
        case 2: self = .`in`
        case 3: self = .gte
        case 4: self = .lte
        case 5: self = .between
        default: self = .unrecognized(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: Int32 {
        switch self {
        case .unspecified: return 0
        case .eq: return 1
        case .`in`: return 2
        case .gte: return 3
        case .lte: return 4
        case .between: return 5
        case .unrecognized(let value): return value
        }
    }

    /// Equal when the wire values are: `.unrecognized(5)` equals `.between`.
    public static func == (lhs: ConditionOperator, rhs: ConditionOperator) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// Where a message is in its life.
///
/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and
/// encodes back unchanged.
public enum MessageStatus: RawRepresentable, CaseIterable, Sendable, Hashable {
    /// `MESSAGE_STATUS_UNSPECIFIED` (0).
    case unspecified
    /// Waiting for its send time.
    case scheduled
    /// Going out to its devices.
    case sending
    /// Every target has been attempted.
    case done
    /// Deleted before it went out.
    case cancelled
    /// A value this version does not know.
    case unrecognized(Int32)

    /// The known values.
    public static let allCases: [MessageStatus] = [.unspecified, .scheduled, .sending, .done, .cancelled]

    /// The default: `.unspecified`.
    public init() { self = .unspecified }

    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .scheduled
        case 2: self = .sending
        case 3: self = .done
        case 4: self = .cancelled
        default: self = .unrecognized(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: Int32 {
        switch self {
        case .unspecified: return 0
        case .scheduled: return 1
        case .sending: return 2
        case .done: return 3
        case .cancelled: return 4
        case .unrecognized(let value): return value
        }
    }

    /// Equal when the wire values are: `.unrecognized(4)` equals `.cancelled`.
    public static func == (lhs: MessageStatus, rhs: MessageStatus) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// Whether the fan-out can reach a device.
///
/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and
/// encodes back unchanged.
public enum TokenState: RawRepresentable, CaseIterable, Sendable, Hashable {
    /// `TOKEN_STATE_UNSPECIFIED` (0).
    case unspecified
    /// Has a push token that no push service has refused: targeted.
    case live
    /// The push service said the token is no longer valid (APNs 410 Unregistered or ExpiredToken,
    /// FCM UNREGISTERED or 404): not targeted until the device registers another token.
    case dead
    /// No push token (never given, or unregistered): not targeted.
    case noToken
    /// The push service said the token was never valid for this app (APNs 400 BadDeviceToken or
    /// DeviceTokenNotForTopic, FCM INVALID_ARGUMENT on the token or SENDER_ID_MISMATCH): not
    /// targeted until the device registers another token.
    case invalid
    /// A value this version does not know.
    case unrecognized(Int32)

    /// The known values.
    public static let allCases: [TokenState] = [.unspecified, .live, .dead, .noToken, .invalid]

    /// The default: `.unspecified`.
    public init() { self = .unspecified }

    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .live
        case 2: self = .dead
        case 3: self = .noToken
        case 4: self = .invalid
        default: self = .unrecognized(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: Int32 {
        switch self {
        case .unspecified: return 0
        case .live: return 1
        case .dead: return 2
        case .noToken: return 3
        case .invalid: return 4
        case .unrecognized(let value): return value
        }
    }

    /// Equal when the wire values are: `.unrecognized(4)` equals `.invalid`.
    public static func == (lhs: TokenState, rhs: TokenState) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// How to change the app icon badge.
public struct Badge: WireMessage, Hashable {
    /// The `change` oneof: at most one of its fields is set.
    public var change: Change? = nil

    /// The fields of the `change` oneof.
    public enum Change: Sendable, Hashable {
        /// Sets the badge to this number (0 clears it).
        case set(UInt32)
        /// Adds this number (may be negative) to the device's current badge.
        case increment(Int32)
    }

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        change: Change? = nil
    ) {
        self.change = change
    }

    /// `pushwire.v1.Badge`.
    public static let protoName = "pushwire.v1.Badge"

    /// protoc-c's descriptor of `pushwire.v1.Badge`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Badge.self, pushwire__v1__badge__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Badge`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Badge`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Badge: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Badge>) {
        switch c.pointee.change_case.rawValue {
        case 1:
            change = .set(c.pointee.set)
        case 2:
            change = .increment(c.pointee.increment)
        default:
            change = nil
        }
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Badge> {
        let c = arena.message(Pushwire__V1__Badge.self, pushwire__v1__badge__init)
        switch change {
        case .set(let value)?:
            c.pointee.change_case = .init(rawValue: 1)
            c.pointee.set = value
        case .increment(let value)?:
            c.pointee.change_case = .init(rawValue: 2)
            c.pointee.increment = value
        case nil:
            break
        }
        return c
    }
}

/// A condition on one tag of a device.
public struct TagCondition: WireMessage, Hashable {
    /// The tag's name.
    public var tag: String = ""
    /// The `operator` field.
    public var `operator`: ConditionOperator = .init()
    /// One value for EQ, GTE, LTE; one or more for IN; two for BETWEEN.
    public var values: [TagValue] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        tag: String = "",
        `operator`: ConditionOperator = .init(),
        values: [TagValue] = []
    ) {
        self.tag = tag
        self.`operator` = `operator`
        self.values = values
    }

    /// `pushwire.v1.TagCondition`.
    public static let protoName = "pushwire.v1.TagCondition"

    /// protoc-c's descriptor of `pushwire.v1.TagCondition`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__TagCondition.self, pushwire__v1__tag_condition__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TagCondition`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TagCondition`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension TagCondition: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__TagCondition>) {
        tag = WireLift.string(c.pointee.tag)
        `operator` = ConditionOperator(rawValue: Int32(truncatingIfNeeded: c.pointee.operator_.rawValue))
        values = WireLift.messages(c.pointee.n_values, c.pointee.values)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__TagCondition> {
        let c = arena.message(Pushwire__V1__TagCondition.self, pushwire__v1__tag_condition__init)
        c.pointee.tag = arena.string(tag)
        c.pointee.operator_ = .init(rawValue: .init(truncatingIfNeeded: `operator`.rawValue))
        c.pointee.n_values = values.count
        c.pointee.values = arena.messages(values)
        return c
    }
}

/// Which devices a notification goes to. Selectors are combined with AND; with none, every
/// registered device of the application is targeted.
public struct Targeting: WireMessage, Hashable {
    /// Explicit devices by hwid; at most 1000.
    public var devices: [String] = []
    /// Devices registered with one of these user ids; at most 1000.
    public var userIDs: [String] = []
    /// Only these platforms.
    public var platforms: [DeviceType] = []
    /// Every condition must hold.
    public var conditions: [TagCondition] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        devices: [String] = [],
        userIDs: [String] = [],
        platforms: [DeviceType] = [],
        conditions: [TagCondition] = []
    ) {
        self.devices = devices
        self.userIDs = userIDs
        self.platforms = platforms
        self.conditions = conditions
    }

    /// `pushwire.v1.Targeting`.
    public static let protoName = "pushwire.v1.Targeting"

    /// protoc-c's descriptor of `pushwire.v1.Targeting`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Targeting.self, pushwire__v1__targeting__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Targeting`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Targeting`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Targeting: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Targeting>) {
        devices = WireLift.strings(c.pointee.n_devices, c.pointee.devices)
        userIDs = WireLift.strings(c.pointee.n_user_ids, c.pointee.user_ids)
        platforms = WireLift.mapped(c.pointee.n_platforms, c.pointee.platforms) { DeviceType(rawValue: Int32(truncatingIfNeeded: $0.rawValue)) }
        conditions = WireLift.messages(c.pointee.n_conditions, c.pointee.conditions)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Targeting> {
        let c = arena.message(Pushwire__V1__Targeting.self, pushwire__v1__targeting__init)
        c.pointee.n_devices = devices.count
        c.pointee.devices = arena.strings(devices)
        c.pointee.n_user_ids = userIDs.count
        c.pointee.user_ids = arena.strings(userIDs)
        c.pointee.n_platforms = platforms.count
        c.pointee.platforms = arena.mapped(platforms) { .init(rawValue: .init(truncatingIfNeeded: $0.rawValue)) }
        c.pointee.n_conditions = conditions.count
        c.pointee.conditions = arena.messages(conditions)
        return c
    }
}

/// One notification to send.
public struct Notification: WireMessage, Hashable {
    /// When to send, in milliseconds since 1970-01-01T00:00:00Z; 0 means now.
    public var sendAtMS: Int64 = 0
    /// The body in the default language; non-empty (empty for a background notification).
    public var content: String = ""
    /// The body in other languages, chosen by each device's language.
    public var localizedContent: [LocalizedText] = []
    /// The title (optional), and its translations.
    public var title: String = ""
    /// The `localized_title` field.
    public var localizedTitle: [LocalizedText] = []
    /// The subtitle (optional), and its translations.
    public var subtitle: String = ""
    /// The `localized_subtitle` field.
    public var localizedSubtitle: [LocalizedText] = []
    /// The category whose buttons the notification shows; 0 for none.
    public var iosCategoryID: UInt32 = 0
    /// Badge change; absent leaves the badge alone.
    public var iosBadge: Badge? = nil
    /// Sound file name, e.g. "default"; empty for silence.
    public var iosSound: String = ""
    /// Seconds APNs keeps trying to deliver (`apns-expiration`); 0 means APNs' default.
    public var iosTTL: UInt32 = 0
    /// Groups notifications in Notification Center (`aps.thread-id`).
    public var iosThreadID: String = ""
    /// The `ios_interruption_level` field.
    public var iosInterruptionLevel: InterruptionLevel = .init()
    /// Custom keys for the payload root, as a JSON object text, e.g. `{"order": 42}`.
    public var data: String = ""
    /// Who receives it.
    public var targeting: Targeting? = nil
    /// A retried request with the same id creates nothing new and returns the first codes.
    public var transactionID: String = ""
    /// Replaces notifications with the same id on the device (`apns-collapse-id`, at most 64 bytes).
    public var iosCollapseID: String = ""
    /// When the payload would exceed 4096 bytes: trim the body to fit instead of rejecting it.
    public var trimToFit: Bool = false
    /// Alert (default) or background; see ApnsPushType.
    public var iosPushType: ApnsPushType = .init()
    /// `aps.mutable-content`: the app's Notification Service Extension may change the notification
    /// before it is shown (e.g. download an image whose URL travels in `data`). Alerts only.
    public var iosMutableContent: Bool = false
    /// `apns-priority`: 10 (at once), 5 (when the device saves power) or 1 (lowest); 0 chooses 10,
    /// or 5 for a background or passive notification. A background notification takes only 5.
    public var iosPriority: UInt32 = 0
    /// `aps.relevance-score`, 0–1: how the system ranks it in the notification summary; 0 leaves
    /// it out.
    public var iosRelevanceScore: Double = 0
    /// `aps.filter-criteria`: the Focus filter it belongs to (at most 256 bytes).
    public var iosFilterCriteria: String = ""
    /// `aps.target-content-id`: the window or content the app brings forward (at most 256 bytes).
    public var iosTargetContentID: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        sendAtMS: Int64 = 0,
        content: String = "",
        localizedContent: [LocalizedText] = [],
        title: String = "",
        localizedTitle: [LocalizedText] = [],
        subtitle: String = "",
        localizedSubtitle: [LocalizedText] = [],
        iosCategoryID: UInt32 = 0,
        iosBadge: Badge? = nil,
        iosSound: String = "",
        iosTTL: UInt32 = 0,
        iosThreadID: String = "",
        iosInterruptionLevel: InterruptionLevel = .init(),
        data: String = "",
        targeting: Targeting? = nil,
        transactionID: String = "",
        iosCollapseID: String = "",
        trimToFit: Bool = false,
        iosPushType: ApnsPushType = .init(),
        iosMutableContent: Bool = false,
        iosPriority: UInt32 = 0,
        iosRelevanceScore: Double = 0,
        iosFilterCriteria: String = "",
        iosTargetContentID: String = ""
    ) {
        self.sendAtMS = sendAtMS
        self.content = content
        self.localizedContent = localizedContent
        self.title = title
        self.localizedTitle = localizedTitle
        self.subtitle = subtitle
        self.localizedSubtitle = localizedSubtitle
        self.iosCategoryID = iosCategoryID
        self.iosBadge = iosBadge
        self.iosSound = iosSound
        self.iosTTL = iosTTL
        self.iosThreadID = iosThreadID
        self.iosInterruptionLevel = iosInterruptionLevel
        self.data = data
        self.targeting = targeting
        self.transactionID = transactionID
        self.iosCollapseID = iosCollapseID
        self.trimToFit = trimToFit
        self.iosPushType = iosPushType
        self.iosMutableContent = iosMutableContent
        self.iosPriority = iosPriority
        self.iosRelevanceScore = iosRelevanceScore
        self.iosFilterCriteria = iosFilterCriteria
        self.iosTargetContentID = iosTargetContentID
    }

    /// `pushwire.v1.Notification`.
    public static let protoName = "pushwire.v1.Notification"

    /// protoc-c's descriptor of `pushwire.v1.Notification`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Notification.self, pushwire__v1__notification__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Notification`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Notification`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Notification: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Notification>) {
        sendAtMS = c.pointee.send_at_ms
        content = WireLift.string(c.pointee.content)
        localizedContent = WireLift.messages(c.pointee.n_localized_content, c.pointee.localized_content)
        title = WireLift.string(c.pointee.title)
        localizedTitle = WireLift.messages(c.pointee.n_localized_title, c.pointee.localized_title)
        subtitle = WireLift.string(c.pointee.subtitle)
        localizedSubtitle = WireLift.messages(c.pointee.n_localized_subtitle, c.pointee.localized_subtitle)
        iosCategoryID = c.pointee.ios_category_id
        iosBadge = WireLift.message(c.pointee.ios_badge)
        iosSound = WireLift.string(c.pointee.ios_sound)
        iosTTL = c.pointee.ios_ttl
        iosThreadID = WireLift.string(c.pointee.ios_thread_id)
        iosInterruptionLevel = InterruptionLevel(rawValue: Int32(truncatingIfNeeded: c.pointee.ios_interruption_level.rawValue))
        data = WireLift.string(c.pointee.data)
        targeting = WireLift.message(c.pointee.targeting)
        transactionID = WireLift.string(c.pointee.transaction_id)
        iosCollapseID = WireLift.string(c.pointee.ios_collapse_id)
        trimToFit = c.pointee.trim_to_fit != 0
        iosPushType = ApnsPushType(rawValue: Int32(truncatingIfNeeded: c.pointee.ios_push_type.rawValue))
        iosMutableContent = c.pointee.ios_mutable_content != 0
        iosPriority = c.pointee.ios_priority
        iosRelevanceScore = c.pointee.ios_relevance_score
        iosFilterCriteria = WireLift.string(c.pointee.ios_filter_criteria)
        iosTargetContentID = WireLift.string(c.pointee.ios_target_content_id)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Notification> {
        let c = arena.message(Pushwire__V1__Notification.self, pushwire__v1__notification__init)
        c.pointee.send_at_ms = sendAtMS
        c.pointee.content = arena.string(content)
        c.pointee.n_localized_content = localizedContent.count
        c.pointee.localized_content = arena.messages(localizedContent)
        c.pointee.title = arena.string(title)
        c.pointee.n_localized_title = localizedTitle.count
        c.pointee.localized_title = arena.messages(localizedTitle)
        c.pointee.subtitle = arena.string(subtitle)
        c.pointee.n_localized_subtitle = localizedSubtitle.count
        c.pointee.localized_subtitle = arena.messages(localizedSubtitle)
        c.pointee.ios_category_id = iosCategoryID
        if let value = iosBadge { c.pointee.ios_badge = value.lower(arena) }
        c.pointee.ios_sound = arena.string(iosSound)
        c.pointee.ios_ttl = iosTTL
        c.pointee.ios_thread_id = arena.string(iosThreadID)
        c.pointee.ios_interruption_level = .init(rawValue: .init(truncatingIfNeeded: iosInterruptionLevel.rawValue))
        c.pointee.data = arena.string(data)
        if let value = targeting { c.pointee.targeting = value.lower(arena) }
        c.pointee.transaction_id = arena.string(transactionID)
        c.pointee.ios_collapse_id = arena.string(iosCollapseID)
        c.pointee.trim_to_fit = trimToFit ? 1 : 0
        c.pointee.ios_push_type = .init(rawValue: .init(truncatingIfNeeded: iosPushType.rawValue))
        c.pointee.ios_mutable_content = iosMutableContent ? 1 : 0
        c.pointee.ios_priority = iosPriority
        c.pointee.ios_relevance_score = iosRelevanceScore
        c.pointee.ios_filter_criteria = arena.string(iosFilterCriteria)
        c.pointee.ios_target_content_id = arena.string(iosTargetContentID)
        return c
    }
}

/// The request of `Messages.CreateMessage`.
public struct CreateMessageRequest: WireMessage, Hashable {
    /// 1–100 notifications.
    public var notifications: [Notification] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        notifications: [Notification] = []
    ) {
        self.notifications = notifications
    }

    /// `pushwire.v1.CreateMessageRequest`.
    public static let protoName = "pushwire.v1.CreateMessageRequest"

    /// protoc-c's descriptor of `pushwire.v1.CreateMessageRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__CreateMessageRequest.self, pushwire__v1__create_message_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CreateMessageRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CreateMessageRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension CreateMessageRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__CreateMessageRequest>) {
        notifications = WireLift.messages(c.pointee.n_notifications, c.pointee.notifications)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__CreateMessageRequest> {
        let c = arena.message(Pushwire__V1__CreateMessageRequest.self, pushwire__v1__create_message_request__init)
        c.pointee.n_notifications = notifications.count
        c.pointee.notifications = arena.messages(notifications)
        return c
    }
}

/// The response of `Messages.CreateMessage`.
public struct CreateMessageResponse: WireMessage, Hashable {
    /// One code per notification, in request order.
    public var messageCodes: [String] = []
    /// Hwids named in `targeting.devices` that the application does not know.
    public var unknownDevices: [String] = []
    /// Hwids named in `targeting.devices` that the application knows without a push token
    /// (registered without one, or unregistered) as last read by this server: none of them is
    /// sent this message unless it registers a token before its delivery (the fan-out decides
    /// at delivery). Best effort: a device this server saw with a token and whose token was
    /// cleared since may be missing. Broad targets (platforms, users, tags) are not reported.
    public var tokenlessDevices: [String] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        messageCodes: [String] = [],
        unknownDevices: [String] = [],
        tokenlessDevices: [String] = []
    ) {
        self.messageCodes = messageCodes
        self.unknownDevices = unknownDevices
        self.tokenlessDevices = tokenlessDevices
    }

    /// `pushwire.v1.CreateMessageResponse`.
    public static let protoName = "pushwire.v1.CreateMessageResponse"

    /// protoc-c's descriptor of `pushwire.v1.CreateMessageResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__CreateMessageResponse.self, pushwire__v1__create_message_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CreateMessageResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CreateMessageResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension CreateMessageResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__CreateMessageResponse>) {
        messageCodes = WireLift.strings(c.pointee.n_message_codes, c.pointee.message_codes)
        unknownDevices = WireLift.strings(c.pointee.n_unknown_devices, c.pointee.unknown_devices)
        tokenlessDevices = WireLift.strings(c.pointee.n_tokenless_devices, c.pointee.tokenless_devices)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__CreateMessageResponse> {
        let c = arena.message(Pushwire__V1__CreateMessageResponse.self, pushwire__v1__create_message_response__init)
        c.pointee.n_message_codes = messageCodes.count
        c.pointee.message_codes = arena.strings(messageCodes)
        c.pointee.n_unknown_devices = unknownDevices.count
        c.pointee.unknown_devices = arena.strings(unknownDevices)
        c.pointee.n_tokenless_devices = tokenlessDevices.count
        c.pointee.tokenless_devices = arena.strings(tokenlessDevices)
        return c
    }
}

/// The request of `Messages.DeleteMessage`.
public struct DeleteMessageRequest: WireMessage, Hashable {
    /// The `message_code` field.
    public var messageCode: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        messageCode: String = ""
    ) {
        self.messageCode = messageCode
    }

    /// `pushwire.v1.DeleteMessageRequest`.
    public static let protoName = "pushwire.v1.DeleteMessageRequest"

    /// protoc-c's descriptor of `pushwire.v1.DeleteMessageRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__DeleteMessageRequest.self, pushwire__v1__delete_message_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.DeleteMessageRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.DeleteMessageRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension DeleteMessageRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__DeleteMessageRequest>) {
        messageCode = WireLift.string(c.pointee.message_code)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__DeleteMessageRequest> {
        let c = arena.message(Pushwire__V1__DeleteMessageRequest.self, pushwire__v1__delete_message_request__init)
        c.pointee.message_code = arena.string(messageCode)
        return c
    }
}

/// The response of `Messages.DeleteMessage`.
public struct DeleteMessageResponse: WireMessage, Hashable {

    /// The message with every field at its default.
    public init() {}

    /// `pushwire.v1.DeleteMessageResponse`.
    public static let protoName = "pushwire.v1.DeleteMessageResponse"

    /// protoc-c's descriptor of `pushwire.v1.DeleteMessageResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__DeleteMessageResponse.self, pushwire__v1__delete_message_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.DeleteMessageResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.DeleteMessageResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension DeleteMessageResponse: CStructBacked {
    init(lifting _: UnsafePointer<Pushwire__V1__DeleteMessageResponse>) {
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__DeleteMessageResponse> {
        let c = arena.message(Pushwire__V1__DeleteMessageResponse.self, pushwire__v1__delete_message_response__init)
        return c
    }
}

/// The request of `Messages.GetMessageDetails`.
public struct GetMessageDetailsRequest: WireMessage, Hashable {
    /// The `message_code` field.
    public var messageCode: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        messageCode: String = ""
    ) {
        self.messageCode = messageCode
    }

    /// `pushwire.v1.GetMessageDetailsRequest`.
    public static let protoName = "pushwire.v1.GetMessageDetailsRequest"

    /// protoc-c's descriptor of `pushwire.v1.GetMessageDetailsRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__GetMessageDetailsRequest.self, pushwire__v1__get_message_details_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetMessageDetailsRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetMessageDetailsRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension GetMessageDetailsRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__GetMessageDetailsRequest>) {
        messageCode = WireLift.string(c.pointee.message_code)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__GetMessageDetailsRequest> {
        let c = arena.message(Pushwire__V1__GetMessageDetailsRequest.self, pushwire__v1__get_message_details_request__init)
        c.pointee.message_code = arena.string(messageCode)
        return c
    }
}

/// How many deliveries failed for one reason, e.g. "BadDeviceToken".
public struct FailureCount: WireMessage, Hashable {
    /// The `reason` field.
    public var reason: String = ""
    /// The `count` field.
    public var count: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        reason: String = "",
        count: UInt64 = 0
    ) {
        self.reason = reason
        self.count = count
    }

    /// `pushwire.v1.FailureCount`.
    public static let protoName = "pushwire.v1.FailureCount"

    /// protoc-c's descriptor of `pushwire.v1.FailureCount`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__FailureCount.self, pushwire__v1__failure_count__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.FailureCount`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.FailureCount`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension FailureCount: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__FailureCount>) {
        reason = WireLift.string(c.pointee.reason)
        count = c.pointee.count
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__FailureCount> {
        let c = arena.message(Pushwire__V1__FailureCount.self, pushwire__v1__failure_count__init)
        c.pointee.reason = arena.string(reason)
        c.pointee.count = count
        return c
    }
}

/// How many devices tapped one button.
public struct ButtonTapCount: WireMessage, Hashable {
    /// The `button_id` field.
    public var buttonID: UInt32 = 0
    /// The button's default label.
    public var label: String = ""
    /// The `count` field.
    public var count: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        buttonID: UInt32 = 0,
        label: String = "",
        count: UInt64 = 0
    ) {
        self.buttonID = buttonID
        self.label = label
        self.count = count
    }

    /// `pushwire.v1.ButtonTapCount`.
    public static let protoName = "pushwire.v1.ButtonTapCount"

    /// protoc-c's descriptor of `pushwire.v1.ButtonTapCount`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__ButtonTapCount.self, pushwire__v1__button_tap_count__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ButtonTapCount`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ButtonTapCount`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension ButtonTapCount: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__ButtonTapCount>) {
        buttonID = c.pointee.button_id
        label = WireLift.string(c.pointee.label)
        count = c.pointee.count
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__ButtonTapCount> {
        let c = arena.message(Pushwire__V1__ButtonTapCount.self, pushwire__v1__button_tap_count__init)
        c.pointee.button_id = buttonID
        c.pointee.label = arena.string(label)
        c.pointee.count = count
        return c
    }
}

/// The counts of one platform's devices (device type) of a message.
public struct PlatformCount: WireMessage, Hashable {
    /// The `device_type` field.
    public var deviceType: DeviceType = .init()
    /// The `targeted` field.
    public var targeted: UInt64 = 0
    /// The `sent` field.
    public var sent: UInt64 = 0
    /// The `failed` field.
    public var failed: UInt64 = 0
    /// The `invalid_tokens` field.
    public var invalidTokens: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        deviceType: DeviceType = .init(),
        targeted: UInt64 = 0,
        sent: UInt64 = 0,
        failed: UInt64 = 0,
        invalidTokens: UInt64 = 0
    ) {
        self.deviceType = deviceType
        self.targeted = targeted
        self.sent = sent
        self.failed = failed
        self.invalidTokens = invalidTokens
    }

    /// `pushwire.v1.PlatformCount`.
    public static let protoName = "pushwire.v1.PlatformCount"

    /// protoc-c's descriptor of `pushwire.v1.PlatformCount`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__PlatformCount.self, pushwire__v1__platform_count__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.PlatformCount`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.PlatformCount`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension PlatformCount: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__PlatformCount>) {
        deviceType = DeviceType(rawValue: Int32(truncatingIfNeeded: c.pointee.device_type.rawValue))
        targeted = c.pointee.targeted
        sent = c.pointee.sent
        failed = c.pointee.failed
        invalidTokens = c.pointee.invalid_tokens
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__PlatformCount> {
        let c = arena.message(Pushwire__V1__PlatformCount.self, pushwire__v1__platform_count__init)
        c.pointee.device_type = .init(rawValue: .init(truncatingIfNeeded: deviceType.rawValue))
        c.pointee.targeted = targeted
        c.pointee.sent = sent
        c.pointee.failed = failed
        c.pointee.invalid_tokens = invalidTokens
        return c
    }
}

/// The response of `Messages.GetMessageDetails`.
public struct GetMessageDetailsResponse: WireMessage, Hashable {
    /// The `message_code` field.
    public var messageCode: String = ""
    /// The `status` field.
    public var status: MessageStatus = .init()
    /// The notification's send time, in milliseconds since 1970-01-01T00:00:00Z.
    public var sendAtMS: Int64 = 0
    /// The `ios_category_id` field.
    public var iosCategoryID: UInt32 = 0
    /// Devices selected by the targeting.
    public var targeted: UInt64 = 0
    /// Accepted by the gateway.
    public var sent: UInt64 = 0
    /// Permanently failed.
    public var failed: UInt64 = 0
    /// Failed because the token was dead or invalid (included in `failed`).
    public var invalidTokens: UInt64 = 0
    /// Failures by reason.
    public var failures: [FailureCount] = []
    /// Devices that opened the notification.
    public var opened: UInt64 = 0
    /// Taps per button of the category.
    public var taps: [ButtonTapCount] = []
    /// The counts above (but opened and taps) per platform, in device type order.
    public var platforms: [PlatformCount] = []
    /// Button taps (all buttons, opens not included) per minute of the time the server recorded
    /// them, oldest first; minutes without taps are left out; at most the latest 1440 minutes.
    public var tapsOverTime: [TapMinute] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        messageCode: String = "",
        status: MessageStatus = .init(),
        sendAtMS: Int64 = 0,
        iosCategoryID: UInt32 = 0,
        targeted: UInt64 = 0,
        sent: UInt64 = 0,
        failed: UInt64 = 0,
        invalidTokens: UInt64 = 0,
        failures: [FailureCount] = [],
        opened: UInt64 = 0,
        taps: [ButtonTapCount] = [],
        platforms: [PlatformCount] = [],
        tapsOverTime: [TapMinute] = []
    ) {
        self.messageCode = messageCode
        self.status = status
        self.sendAtMS = sendAtMS
        self.iosCategoryID = iosCategoryID
        self.targeted = targeted
        self.sent = sent
        self.failed = failed
        self.invalidTokens = invalidTokens
        self.failures = failures
        self.opened = opened
        self.taps = taps
        self.platforms = platforms
        self.tapsOverTime = tapsOverTime
    }

    /// `pushwire.v1.GetMessageDetailsResponse`.
    public static let protoName = "pushwire.v1.GetMessageDetailsResponse"

    /// protoc-c's descriptor of `pushwire.v1.GetMessageDetailsResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__GetMessageDetailsResponse.self, pushwire__v1__get_message_details_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetMessageDetailsResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetMessageDetailsResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension GetMessageDetailsResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__GetMessageDetailsResponse>) {
        messageCode = WireLift.string(c.pointee.message_code)
        status = MessageStatus(rawValue: Int32(truncatingIfNeeded: c.pointee.status.rawValue))
        sendAtMS = c.pointee.send_at_ms
        iosCategoryID = c.pointee.ios_category_id
        targeted = c.pointee.targeted
        sent = c.pointee.sent
        failed = c.pointee.failed
        invalidTokens = c.pointee.invalid_tokens
        failures = WireLift.messages(c.pointee.n_failures, c.pointee.failures)
        opened = c.pointee.opened
        taps = WireLift.messages(c.pointee.n_taps, c.pointee.taps)
        platforms = WireLift.messages(c.pointee.n_platforms, c.pointee.platforms)
        tapsOverTime = WireLift.messages(c.pointee.n_taps_over_time, c.pointee.taps_over_time)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__GetMessageDetailsResponse> {
        let c = arena.message(Pushwire__V1__GetMessageDetailsResponse.self, pushwire__v1__get_message_details_response__init)
        c.pointee.message_code = arena.string(messageCode)
        c.pointee.status = .init(rawValue: .init(truncatingIfNeeded: status.rawValue))
        c.pointee.send_at_ms = sendAtMS
        c.pointee.ios_category_id = iosCategoryID
        c.pointee.targeted = targeted
        c.pointee.sent = sent
        c.pointee.failed = failed
        c.pointee.invalid_tokens = invalidTokens
        c.pointee.n_failures = failures.count
        c.pointee.failures = arena.messages(failures)
        c.pointee.opened = opened
        c.pointee.n_taps = taps.count
        c.pointee.taps = arena.messages(taps)
        c.pointee.n_platforms = platforms.count
        c.pointee.platforms = arena.messages(platforms)
        c.pointee.n_taps_over_time = tapsOverTime.count
        c.pointee.taps_over_time = arena.messages(tapsOverTime)
        return c
    }
}

/// The button taps recorded in one minute.
public struct TapMinute: WireMessage, Hashable {
    /// The minute's start, in milliseconds since 1970-01-01T00:00:00Z.
    public var minuteMS: Int64 = 0
    /// The `taps` field.
    public var taps: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        minuteMS: Int64 = 0,
        taps: UInt64 = 0
    ) {
        self.minuteMS = minuteMS
        self.taps = taps
    }

    /// `pushwire.v1.TapMinute`.
    public static let protoName = "pushwire.v1.TapMinute"

    /// protoc-c's descriptor of `pushwire.v1.TapMinute`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__TapMinute.self, pushwire__v1__tap_minute__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TapMinute`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.TapMinute`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension TapMinute: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__TapMinute>) {
        minuteMS = c.pointee.minute_ms
        taps = c.pointee.taps
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__TapMinute> {
        let c = arena.message(Pushwire__V1__TapMinute.self, pushwire__v1__tap_minute__init)
        c.pointee.minute_ms = minuteMS
        c.pointee.taps = taps
        return c
    }
}

/// The request of `Messages.ListMessages`.
public struct ListMessagesRequest: WireMessage, Hashable {
    /// At most this many messages, 1–100; 0 means 50.
    public var pageSize: UInt32 = 0
    /// `next_page_token` of the previous page; empty for the first (newest) page.
    public var pageToken: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        pageSize: UInt32 = 0,
        pageToken: String = ""
    ) {
        self.pageSize = pageSize
        self.pageToken = pageToken
    }

    /// `pushwire.v1.ListMessagesRequest`.
    public static let protoName = "pushwire.v1.ListMessagesRequest"

    /// protoc-c's descriptor of `pushwire.v1.ListMessagesRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__ListMessagesRequest.self, pushwire__v1__list_messages_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListMessagesRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListMessagesRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension ListMessagesRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__ListMessagesRequest>) {
        pageSize = c.pointee.page_size
        pageToken = WireLift.string(c.pointee.page_token)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__ListMessagesRequest> {
        let c = arena.message(Pushwire__V1__ListMessagesRequest.self, pushwire__v1__list_messages_request__init)
        c.pointee.page_size = pageSize
        c.pointee.page_token = arena.string(pageToken)
        return c
    }
}

/// One message as the list shows it.
public struct MessageSummary: WireMessage, Hashable {
    /// The `message_code` field.
    public var messageCode: String = ""
    /// The `status` field.
    public var status: MessageStatus = .init()
    /// The send time, in milliseconds since 1970-01-01T00:00:00Z.
    public var sendAtMS: Int64 = 0
    /// The `ios_category_id` field.
    public var iosCategoryID: UInt32 = 0
    /// The `targeted` field.
    public var targeted: UInt64 = 0
    /// The `sent` field.
    public var sent: UInt64 = 0
    /// The `failed` field.
    public var failed: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        messageCode: String = "",
        status: MessageStatus = .init(),
        sendAtMS: Int64 = 0,
        iosCategoryID: UInt32 = 0,
        targeted: UInt64 = 0,
        sent: UInt64 = 0,
        failed: UInt64 = 0
    ) {
        self.messageCode = messageCode
        self.status = status
        self.sendAtMS = sendAtMS
        self.iosCategoryID = iosCategoryID
        self.targeted = targeted
        self.sent = sent
        self.failed = failed
    }

    /// `pushwire.v1.MessageSummary`.
    public static let protoName = "pushwire.v1.MessageSummary"

    /// protoc-c's descriptor of `pushwire.v1.MessageSummary`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__MessageSummary.self, pushwire__v1__message_summary__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.MessageSummary`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.MessageSummary`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension MessageSummary: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__MessageSummary>) {
        messageCode = WireLift.string(c.pointee.message_code)
        status = MessageStatus(rawValue: Int32(truncatingIfNeeded: c.pointee.status.rawValue))
        sendAtMS = c.pointee.send_at_ms
        iosCategoryID = c.pointee.ios_category_id
        targeted = c.pointee.targeted
        sent = c.pointee.sent
        failed = c.pointee.failed
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__MessageSummary> {
        let c = arena.message(Pushwire__V1__MessageSummary.self, pushwire__v1__message_summary__init)
        c.pointee.message_code = arena.string(messageCode)
        c.pointee.status = .init(rawValue: .init(truncatingIfNeeded: status.rawValue))
        c.pointee.send_at_ms = sendAtMS
        c.pointee.ios_category_id = iosCategoryID
        c.pointee.targeted = targeted
        c.pointee.sent = sent
        c.pointee.failed = failed
        return c
    }
}

/// The response of `Messages.ListMessages`.
public struct ListMessagesResponse: WireMessage, Hashable {
    /// Newest (last created) first.
    public var messages: [MessageSummary] = []
    /// Pass it as `page_token` for the next page; empty on the last page.
    public var nextPageToken: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        messages: [MessageSummary] = [],
        nextPageToken: String = ""
    ) {
        self.messages = messages
        self.nextPageToken = nextPageToken
    }

    /// `pushwire.v1.ListMessagesResponse`.
    public static let protoName = "pushwire.v1.ListMessagesResponse"

    /// protoc-c's descriptor of `pushwire.v1.ListMessagesResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__ListMessagesResponse.self, pushwire__v1__list_messages_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListMessagesResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListMessagesResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension ListMessagesResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__ListMessagesResponse>) {
        messages = WireLift.messages(c.pointee.n_messages, c.pointee.messages)
        nextPageToken = WireLift.string(c.pointee.next_page_token)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__ListMessagesResponse> {
        let c = arena.message(Pushwire__V1__ListMessagesResponse.self, pushwire__v1__list_messages_response__init)
        c.pointee.n_messages = messages.count
        c.pointee.messages = arena.messages(messages)
        c.pointee.next_page_token = arena.string(nextPageToken)
        return c
    }
}

/// The request of `Messages.CountTargets`.
public struct CountTargetsRequest: WireMessage, Hashable {
    /// The targeting to count, as in a notification.
    public var targeting: Targeting? = nil

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        targeting: Targeting? = nil
    ) {
        self.targeting = targeting
    }

    /// `pushwire.v1.CountTargetsRequest`.
    public static let protoName = "pushwire.v1.CountTargetsRequest"

    /// protoc-c's descriptor of `pushwire.v1.CountTargetsRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__CountTargetsRequest.self, pushwire__v1__count_targets_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CountTargetsRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CountTargetsRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension CountTargetsRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__CountTargetsRequest>) {
        targeting = WireLift.message(c.pointee.targeting)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__CountTargetsRequest> {
        let c = arena.message(Pushwire__V1__CountTargetsRequest.self, pushwire__v1__count_targets_request__init)
        if let value = targeting { c.pointee.targeting = value.lower(arena) }
        return c
    }
}

/// The response of `Messages.CountTargets`.
public struct CountTargetsResponse: WireMessage, Hashable {
    /// Devices it selects now (with a live push token), at most `limit`.
    public var devices: UInt64 = 0
    /// True when counting stopped at the limit (1,000,000): there are at least that many.
    public var atLeast: Bool = false

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        devices: UInt64 = 0,
        atLeast: Bool = false
    ) {
        self.devices = devices
        self.atLeast = atLeast
    }

    /// `pushwire.v1.CountTargetsResponse`.
    public static let protoName = "pushwire.v1.CountTargetsResponse"

    /// protoc-c's descriptor of `pushwire.v1.CountTargetsResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__CountTargetsResponse.self, pushwire__v1__count_targets_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CountTargetsResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.CountTargetsResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension CountTargetsResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__CountTargetsResponse>) {
        devices = c.pointee.devices
        atLeast = c.pointee.at_least != 0
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__CountTargetsResponse> {
        let c = arena.message(Pushwire__V1__CountTargetsResponse.self, pushwire__v1__count_targets_response__init)
        c.pointee.devices = devices
        c.pointee.at_least = atLeast ? 1 : 0
        return c
    }
}

/// The request of `Messages.PreviewNotification`.
public struct PreviewNotificationRequest: WireMessage, Hashable {
    /// The notification, as it would be given to CreateMessage (its targeting is not used).
    public var notification: Notification? = nil

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        notification: Notification? = nil
    ) {
        self.notification = notification
    }

    /// `pushwire.v1.PreviewNotificationRequest`.
    public static let protoName = "pushwire.v1.PreviewNotificationRequest"

    /// protoc-c's descriptor of `pushwire.v1.PreviewNotificationRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__PreviewNotificationRequest.self, pushwire__v1__preview_notification_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.PreviewNotificationRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.PreviewNotificationRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension PreviewNotificationRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__PreviewNotificationRequest>) {
        notification = WireLift.message(c.pointee.notification)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__PreviewNotificationRequest> {
        let c = arena.message(Pushwire__V1__PreviewNotificationRequest.self, pushwire__v1__preview_notification_request__init)
        if let value = notification { c.pointee.notification = value.lower(arena) }
        return c
    }
}

/// The payload one language's devices would receive.
public struct RenderedPayload: WireMessage, Hashable {
    /// The language ("" for the default texts, for devices of any other language).
    public var language: String = ""
    /// The APNs payload JSON, exactly as sent (`pw_msg` carries a placeholder code of the same
    /// length as a real one; the badge is the one a device with badge 0 gets).
    public var apnsPayload: String = ""
    /// Its size in bytes.
    public var size: UInt32 = 0
    /// The largest size any device can get (the widest badge); what is checked against the limit.
    public var worstCaseSize: UInt32 = 0
    /// True when `trim_to_fit` shortened the body to fit.
    public var trimmed: Bool = false

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        language: String = "",
        apnsPayload: String = "",
        size: UInt32 = 0,
        worstCaseSize: UInt32 = 0,
        trimmed: Bool = false
    ) {
        self.language = language
        self.apnsPayload = apnsPayload
        self.size = size
        self.worstCaseSize = worstCaseSize
        self.trimmed = trimmed
    }

    /// `pushwire.v1.RenderedPayload`.
    public static let protoName = "pushwire.v1.RenderedPayload"

    /// protoc-c's descriptor of `pushwire.v1.RenderedPayload`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__RenderedPayload.self, pushwire__v1__rendered_payload__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.RenderedPayload`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.RenderedPayload`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension RenderedPayload: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__RenderedPayload>) {
        language = WireLift.string(c.pointee.language)
        apnsPayload = WireLift.string(c.pointee.apns_payload)
        size = c.pointee.size
        worstCaseSize = c.pointee.worst_case_size
        trimmed = c.pointee.trimmed != 0
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__RenderedPayload> {
        let c = arena.message(Pushwire__V1__RenderedPayload.self, pushwire__v1__rendered_payload__init)
        c.pointee.language = arena.string(language)
        c.pointee.apns_payload = arena.string(apnsPayload)
        c.pointee.size = size
        c.pointee.worst_case_size = worstCaseSize
        c.pointee.trimmed = trimmed ? 1 : 0
        return c
    }
}

/// The response of `Messages.PreviewNotification`.
public struct PreviewNotificationResponse: WireMessage, Hashable {
    /// The default texts first, then each translation by language.
    public var payloads: [RenderedPayload] = []
    /// APNs' payload limit, 4096 bytes.
    public var limit: UInt32 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        payloads: [RenderedPayload] = [],
        limit: UInt32 = 0
    ) {
        self.payloads = payloads
        self.limit = limit
    }

    /// `pushwire.v1.PreviewNotificationResponse`.
    public static let protoName = "pushwire.v1.PreviewNotificationResponse"

    /// protoc-c's descriptor of `pushwire.v1.PreviewNotificationResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__PreviewNotificationResponse.self, pushwire__v1__preview_notification_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.PreviewNotificationResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.PreviewNotificationResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension PreviewNotificationResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__PreviewNotificationResponse>) {
        payloads = WireLift.messages(c.pointee.n_payloads, c.pointee.payloads)
        limit = c.pointee.limit
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__PreviewNotificationResponse> {
        let c = arena.message(Pushwire__V1__PreviewNotificationResponse.self, pushwire__v1__preview_notification_response__init)
        c.pointee.n_payloads = payloads.count
        c.pointee.payloads = arena.messages(payloads)
        c.pointee.limit = limit
        return c
    }
}

/// The request of `Messages.GetDevice`.
public struct GetDeviceRequest: WireMessage, Hashable {
    /// The `hwid` field.
    public var hwid: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        hwid: String = ""
    ) {
        self.hwid = hwid
    }

    /// `pushwire.v1.GetDeviceRequest`.
    public static let protoName = "pushwire.v1.GetDeviceRequest"

    /// protoc-c's descriptor of `pushwire.v1.GetDeviceRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__GetDeviceRequest.self, pushwire__v1__get_device_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetDeviceRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetDeviceRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension GetDeviceRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__GetDeviceRequest>) {
        hwid = WireLift.string(c.pointee.hwid)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__GetDeviceRequest> {
        let c = arena.message(Pushwire__V1__GetDeviceRequest.self, pushwire__v1__get_device_request__init)
        c.pointee.hwid = arena.string(hwid)
        return c
    }
}

/// The response of `Messages.GetDevice`.
public struct GetDeviceResponse: WireMessage, Hashable {
    /// The `hwid` field.
    public var hwid: String = ""
    /// The `device_type` field.
    public var deviceType: DeviceType = .init()
    /// The `language` field.
    public var language: String = ""
    /// The `user_id` field.
    public var userID: String = ""
    /// The `tags` field.
    public var tags: [Tag] = []
    /// The `token_state` field.
    public var tokenState: TokenState = .init()
    /// The push token (empty when none).
    public var pushToken: String = ""
    /// The badge Pushwire last set on it.
    public var badge: Int64 = 0
    /// For a dead or invalid token, since when (ms since 1970): APNs' `timestamp` of its 410, or
    /// else the time the push service answered; 0 otherwise, and for tokens refused before the
    /// store kept the time.
    public var tokenRefusedAtMS: Int64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        hwid: String = "",
        deviceType: DeviceType = .init(),
        language: String = "",
        userID: String = "",
        tags: [Tag] = [],
        tokenState: TokenState = .init(),
        pushToken: String = "",
        badge: Int64 = 0,
        tokenRefusedAtMS: Int64 = 0
    ) {
        self.hwid = hwid
        self.deviceType = deviceType
        self.language = language
        self.userID = userID
        self.tags = tags
        self.tokenState = tokenState
        self.pushToken = pushToken
        self.badge = badge
        self.tokenRefusedAtMS = tokenRefusedAtMS
    }

    /// `pushwire.v1.GetDeviceResponse`.
    public static let protoName = "pushwire.v1.GetDeviceResponse"

    /// protoc-c's descriptor of `pushwire.v1.GetDeviceResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__GetDeviceResponse.self, pushwire__v1__get_device_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetDeviceResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GetDeviceResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension GetDeviceResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__GetDeviceResponse>) {
        hwid = WireLift.string(c.pointee.hwid)
        deviceType = DeviceType(rawValue: Int32(truncatingIfNeeded: c.pointee.device_type.rawValue))
        language = WireLift.string(c.pointee.language)
        userID = WireLift.string(c.pointee.user_id)
        tags = WireLift.messages(c.pointee.n_tags, c.pointee.tags)
        tokenState = TokenState(rawValue: Int32(truncatingIfNeeded: c.pointee.token_state.rawValue))
        pushToken = WireLift.string(c.pointee.push_token)
        badge = c.pointee.badge
        tokenRefusedAtMS = c.pointee.token_refused_at_ms
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__GetDeviceResponse> {
        let c = arena.message(Pushwire__V1__GetDeviceResponse.self, pushwire__v1__get_device_response__init)
        c.pointee.hwid = arena.string(hwid)
        c.pointee.device_type = .init(rawValue: .init(truncatingIfNeeded: deviceType.rawValue))
        c.pointee.language = arena.string(language)
        c.pointee.user_id = arena.string(userID)
        c.pointee.n_tags = tags.count
        c.pointee.tags = arena.messages(tags)
        c.pointee.token_state = .init(rawValue: .init(truncatingIfNeeded: tokenState.rawValue))
        c.pointee.push_token = arena.string(pushToken)
        c.pointee.badge = badge
        c.pointee.token_refused_at_ms = tokenRefusedAtMS
        return c
    }
}
