// generated — do not edit. Source: Protos/pushwire/v1/categories.proto. Regenerate with Scripts/generate.

import CProtobufC
import PushwireProtoC

/// What a button does when tapped.
///
/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and
/// encodes back unchanged.
public enum ButtonBehavior: RawRepresentable, CaseIterable, Sendable, Hashable {
    /// `BUTTON_BEHAVIOR_UNSPECIFIED` (0).
    case unspecified
    /// A plain button: tapping it reports the button id.
    case `default`
    /// Opens a text field; the text the user types is reported with the tap.
    case textInput
    /// A value this version does not know.
    case unrecognized(Int32)

    /// The known values.
    public static let allCases: [ButtonBehavior] = [.unspecified, .`default`, .textInput]

    /// The default: `.unspecified`.
    public init() { self = .unspecified }

    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .`default`
        case 2: self = .textInput
        default: self = .unrecognized(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: Int32 {
        switch self {
        case .unspecified: return 0
        case .`default`: return 1
        case .textInput: return 2
        case .unrecognized(let value): return value
        }
    }

    /// Equal when the wire values are: `.unrecognized(2)` equals `.textInput`.
    public static func == (lhs: ButtonBehavior, rhs: ButtonBehavior) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// A set of 1–4 action buttons shown with a notification. Apple's default context shows all of
/// them; the minimal context (banner, lock screen) shows the first two.
public struct Category: WireMessage, Hashable {
    /// Assigned by the server, unique in the application; sent to devices as its decimal string
    /// (APNs `aps.category`, e.g. "65").
    public var categoryID: UInt32 = 0
    /// The operator's name for it, e.g. "YesNo"; 1–64 bytes, unique in the application.
    public var name: String = ""
    /// 1–4 buttons, in display order.
    public var buttons: [Button] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        categoryID: UInt32 = 0,
        name: String = "",
        buttons: [Button] = []
    ) {
        self.categoryID = categoryID
        self.name = name
        self.buttons = buttons
    }

    /// `pushwire.v1.Category`.
    public static let protoName = "pushwire.v1.Category"

    /// protoc-c's descriptor of `pushwire.v1.Category`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Category.self, pushwire__v1__category__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Category`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Category`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Category: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Category>) {
        categoryID = c.pointee.category_id
        name = WireLift.string(c.pointee.name)
        buttons = WireLift.messages(c.pointee.n_buttons, c.pointee.buttons)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Category> {
        let c = arena.message(Pushwire__V1__Category.self, pushwire__v1__category__init)
        c.pointee.category_id = categoryID
        c.pointee.name = arena.string(name)
        c.pointee.n_buttons = buttons.count
        c.pointee.buttons = arena.messages(buttons)
        return c
    }
}

/// One action button.
public struct Button: WireMessage, Hashable {
    /// 0-based, unique within the category; its decimal string is the action identifier the device
    /// reports when the button is tapped.
    public var id: UInt32 = 0
    /// The default label; non-empty, at most 64 bytes.
    public var label: String = ""
    /// Labels in other languages, chosen by the device's language.
    public var localizedLabels: [LocalizedText] = []
    /// Shown in red (Pushwoosh's `type` 1).
    public var destructive: Bool = false
    /// Brings the application to the foreground (Pushwoosh's `startApplication`); implies
    /// authentication_required.
    public var startApplication: Bool = false
    /// The device must be unlocked before the action runs.
    public var authenticationRequired: Bool = false
    /// A plain button or a text input.
    public var behavior: ButtonBehavior = .init()
    /// For text input: the title of the send button; required for BUTTON_BEHAVIOR_TEXT_INPUT.
    public var textInputButtonTitle: String = ""
    /// For text input: the placeholder of the text field; required for BUTTON_BEHAVIOR_TEXT_INPUT.
    public var textInputPlaceholder: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        id: UInt32 = 0,
        label: String = "",
        localizedLabels: [LocalizedText] = [],
        destructive: Bool = false,
        startApplication: Bool = false,
        authenticationRequired: Bool = false,
        behavior: ButtonBehavior = .init(),
        textInputButtonTitle: String = "",
        textInputPlaceholder: String = ""
    ) {
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

    /// `pushwire.v1.Button`.
    public static let protoName = "pushwire.v1.Button"

    /// protoc-c's descriptor of `pushwire.v1.Button`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Button.self, pushwire__v1__button__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Button`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Button`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Button: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Button>) {
        id = c.pointee.id
        label = WireLift.string(c.pointee.label)
        localizedLabels = WireLift.messages(c.pointee.n_localized_labels, c.pointee.localized_labels)
        destructive = c.pointee.destructive != 0
        startApplication = c.pointee.start_application != 0
        authenticationRequired = c.pointee.authentication_required != 0
        behavior = ButtonBehavior(rawValue: Int32(truncatingIfNeeded: c.pointee.behavior.rawValue))
        textInputButtonTitle = WireLift.string(c.pointee.text_input_button_title)
        textInputPlaceholder = WireLift.string(c.pointee.text_input_placeholder)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Button> {
        let c = arena.message(Pushwire__V1__Button.self, pushwire__v1__button__init)
        c.pointee.id = id
        c.pointee.label = arena.string(label)
        c.pointee.n_localized_labels = localizedLabels.count
        c.pointee.localized_labels = arena.messages(localizedLabels)
        c.pointee.destructive = destructive ? 1 : 0
        c.pointee.start_application = startApplication ? 1 : 0
        c.pointee.authentication_required = authenticationRequired ? 1 : 0
        c.pointee.behavior = .init(rawValue: .init(truncatingIfNeeded: behavior.rawValue))
        c.pointee.text_input_button_title = arena.string(textInputButtonTitle)
        c.pointee.text_input_placeholder = arena.string(textInputPlaceholder)
        return c
    }
}

/// The request of `Categories.UpsertCategory`.
public struct UpsertCategoryRequest: WireMessage, Hashable {
    /// The category to store; category_id 0 creates a new one.
    public var category: Category? = nil

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        category: Category? = nil
    ) {
        self.category = category
    }

    /// `pushwire.v1.UpsertCategoryRequest`.
    public static let protoName = "pushwire.v1.UpsertCategoryRequest"

    /// protoc-c's descriptor of `pushwire.v1.UpsertCategoryRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__UpsertCategoryRequest.self, pushwire__v1__upsert_category_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UpsertCategoryRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UpsertCategoryRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension UpsertCategoryRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__UpsertCategoryRequest>) {
        category = WireLift.message(c.pointee.category)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__UpsertCategoryRequest> {
        let c = arena.message(Pushwire__V1__UpsertCategoryRequest.self, pushwire__v1__upsert_category_request__init)
        if let value = category { c.pointee.category = value.lower(arena) }
        return c
    }
}

/// The response of `Categories.UpsertCategory`.
public struct UpsertCategoryResponse: WireMessage, Hashable {
    /// The category as stored, with its category_id.
    public var category: Category? = nil
    /// The application's categories version after the change.
    public var categoriesVersion: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        category: Category? = nil,
        categoriesVersion: UInt64 = 0
    ) {
        self.category = category
        self.categoriesVersion = categoriesVersion
    }

    /// `pushwire.v1.UpsertCategoryResponse`.
    public static let protoName = "pushwire.v1.UpsertCategoryResponse"

    /// protoc-c's descriptor of `pushwire.v1.UpsertCategoryResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__UpsertCategoryResponse.self, pushwire__v1__upsert_category_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UpsertCategoryResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.UpsertCategoryResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension UpsertCategoryResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__UpsertCategoryResponse>) {
        category = WireLift.message(c.pointee.category)
        categoriesVersion = c.pointee.categories_version
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__UpsertCategoryResponse> {
        let c = arena.message(Pushwire__V1__UpsertCategoryResponse.self, pushwire__v1__upsert_category_response__init)
        if let value = category { c.pointee.category = value.lower(arena) }
        c.pointee.categories_version = categoriesVersion
        return c
    }
}

/// The request of `Categories.DeleteCategory`.
public struct DeleteCategoryRequest: WireMessage, Hashable {
    /// The `category_id` field.
    public var categoryID: UInt32 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        categoryID: UInt32 = 0
    ) {
        self.categoryID = categoryID
    }

    /// `pushwire.v1.DeleteCategoryRequest`.
    public static let protoName = "pushwire.v1.DeleteCategoryRequest"

    /// protoc-c's descriptor of `pushwire.v1.DeleteCategoryRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__DeleteCategoryRequest.self, pushwire__v1__delete_category_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.DeleteCategoryRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.DeleteCategoryRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension DeleteCategoryRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__DeleteCategoryRequest>) {
        categoryID = c.pointee.category_id
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__DeleteCategoryRequest> {
        let c = arena.message(Pushwire__V1__DeleteCategoryRequest.self, pushwire__v1__delete_category_request__init)
        c.pointee.category_id = categoryID
        return c
    }
}

/// The response of `Categories.DeleteCategory`.
public struct DeleteCategoryResponse: WireMessage, Hashable {
    /// The application's categories version after the change.
    public var categoriesVersion: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        categoriesVersion: UInt64 = 0
    ) {
        self.categoriesVersion = categoriesVersion
    }

    /// `pushwire.v1.DeleteCategoryResponse`.
    public static let protoName = "pushwire.v1.DeleteCategoryResponse"

    /// protoc-c's descriptor of `pushwire.v1.DeleteCategoryResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__DeleteCategoryResponse.self, pushwire__v1__delete_category_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.DeleteCategoryResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.DeleteCategoryResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension DeleteCategoryResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__DeleteCategoryResponse>) {
        categoriesVersion = c.pointee.categories_version
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__DeleteCategoryResponse> {
        let c = arena.message(Pushwire__V1__DeleteCategoryResponse.self, pushwire__v1__delete_category_response__init)
        c.pointee.categories_version = categoriesVersion
        return c
    }
}

/// The request of `Categories.ListCategories`.
public struct ListCategoriesRequest: WireMessage, Hashable {

    /// The message with every field at its default.
    public init() {}

    /// `pushwire.v1.ListCategoriesRequest`.
    public static let protoName = "pushwire.v1.ListCategoriesRequest"

    /// protoc-c's descriptor of `pushwire.v1.ListCategoriesRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__ListCategoriesRequest.self, pushwire__v1__list_categories_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListCategoriesRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListCategoriesRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension ListCategoriesRequest: CStructBacked {
    init(lifting _: UnsafePointer<Pushwire__V1__ListCategoriesRequest>) {
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__ListCategoriesRequest> {
        let c = arena.message(Pushwire__V1__ListCategoriesRequest.self, pushwire__v1__list_categories_request__init)
        return c
    }
}

/// The response of `Categories.ListCategories`.
public struct ListCategoriesResponse: WireMessage, Hashable {
    /// The `categories` field.
    public var categories: [Category] = []
    /// The version this list belongs to.
    public var categoriesVersion: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        categories: [Category] = [],
        categoriesVersion: UInt64 = 0
    ) {
        self.categories = categories
        self.categoriesVersion = categoriesVersion
    }

    /// `pushwire.v1.ListCategoriesResponse`.
    public static let protoName = "pushwire.v1.ListCategoriesResponse"

    /// protoc-c's descriptor of `pushwire.v1.ListCategoriesResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__ListCategoriesResponse.self, pushwire__v1__list_categories_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListCategoriesResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListCategoriesResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension ListCategoriesResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__ListCategoriesResponse>) {
        categories = WireLift.messages(c.pointee.n_categories, c.pointee.categories)
        categoriesVersion = c.pointee.categories_version
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__ListCategoriesResponse> {
        let c = arena.message(Pushwire__V1__ListCategoriesResponse.self, pushwire__v1__list_categories_response__init)
        c.pointee.n_categories = categories.count
        c.pointee.categories = arena.messages(categories)
        c.pointee.categories_version = categoriesVersion
        return c
    }
}
