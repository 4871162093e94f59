// generated — do not edit. Source: Protos/pushwire/v1/reflection.proto. Regenerate with Scripts/generate.

import CProtobufC
import PushwireProtoC

/// The request of `Reflection.ListMethods`.
public struct ListMethodsRequest: WireMessage, Hashable {

    /// The message with every field at its default.
    public init() {}

    /// `pushwire.v1.ListMethodsRequest`.
    public static let protoName = "pushwire.v1.ListMethodsRequest"

    /// protoc-c's descriptor of `pushwire.v1.ListMethodsRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__ListMethodsRequest.self, pushwire__v1__list_methods_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListMethodsRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListMethodsRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension ListMethodsRequest: CStructBacked {
    init(lifting _: UnsafePointer<Pushwire__V1__ListMethodsRequest>) {
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__ListMethodsRequest> {
        let c = arena.message(Pushwire__V1__ListMethodsRequest.self, pushwire__v1__list_methods_request__init)
        return c
    }
}

/// The response of `Reflection.ListMethods`.
public struct ListMethodsResponse: WireMessage, Hashable {
    /// Sorted by path.
    public var methods: [MethodInfo] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        methods: [MethodInfo] = []
    ) {
        self.methods = methods
    }

    /// `pushwire.v1.ListMethodsResponse`.
    public static let protoName = "pushwire.v1.ListMethodsResponse"

    /// protoc-c's descriptor of `pushwire.v1.ListMethodsResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__ListMethodsResponse.self, pushwire__v1__list_methods_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListMethodsResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.ListMethodsResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension ListMethodsResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__ListMethodsResponse>) {
        methods = WireLift.messages(c.pointee.n_methods, c.pointee.methods)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__ListMethodsResponse> {
        let c = arena.message(Pushwire__V1__ListMethodsResponse.self, pushwire__v1__list_methods_response__init)
        c.pointee.n_methods = methods.count
        c.pointee.methods = arena.messages(methods)
        return c
    }
}

/// One method the server answers.
public struct MethodInfo: WireMessage, Hashable {
    /// `/pushwire.v1.<Service>/<Method>`.
    public var path: String = ""
    /// Fully qualified request message name, e.g. "pushwire.v1.HealthCheckRequest".
    public var requestType: String = ""
    /// Fully qualified response message name.
    public var responseType: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        path: String = "",
        requestType: String = "",
        responseType: String = ""
    ) {
        self.path = path
        self.requestType = requestType
        self.responseType = responseType
    }

    /// `pushwire.v1.MethodInfo`.
    public static let protoName = "pushwire.v1.MethodInfo"

    /// protoc-c's descriptor of `pushwire.v1.MethodInfo`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__MethodInfo.self, pushwire__v1__method_info__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.MethodInfo`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.MethodInfo`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension MethodInfo: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__MethodInfo>) {
        path = WireLift.string(c.pointee.path)
        requestType = WireLift.string(c.pointee.request_type)
        responseType = WireLift.string(c.pointee.response_type)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__MethodInfo> {
        let c = arena.message(Pushwire__V1__MethodInfo.self, pushwire__v1__method_info__init)
        c.pointee.path = arena.string(path)
        c.pointee.request_type = arena.string(requestType)
        c.pointee.response_type = arena.string(responseType)
        return c
    }
}
