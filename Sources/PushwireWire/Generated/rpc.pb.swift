// generated — do not edit. Source: Protos/pushwire/v1/rpc.proto. Regenerate with Scripts/generate.

import CProtobufC
import PushwireProtoC

/// One unit on the wire. After the 8-byte preface `PWIRE/1\n`, each frame travels as a
/// 4-byte big-endian length N followed by N bytes of this message.
public struct Frame: WireMessage, Hashable {
    /// The call this frame belongs to. Chosen by the client, unique among its calls in flight on
    /// the connection; 0 for frames that belong to no call (settings, ping, pong, go_away).
    public var callID: UInt32 = 0
    /// Exactly one kind per frame; a frame with no kind is a protocol error.
    public var kind: Kind? = nil

    /// The fields of the `kind` oneof.
    public enum Kind: Sendable, Hashable {
        /// The `request` field.
        case request(Request)
        /// The `response` field.
        case response(Response)
        /// The `cancel` field.
        case cancel(Cancel)
        /// The `ping` field.
        case ping(Ping)
        /// The `pong` field.
        case pong(Pong)
        /// The `go_away` field.
        case goAway(GoAway)
        /// The `settings` field.
        case settings(Settings)
    }

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        callID: UInt32 = 0,
        kind: Kind? = nil
    ) {
        self.callID = callID
        self.kind = kind
    }

    /// `pushwire.v1.Frame`.
    public static let protoName = "pushwire.v1.Frame"

    /// protoc-c's descriptor of `pushwire.v1.Frame`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Frame.self, pushwire__v1__frame__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Frame`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Frame`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Frame: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Frame>) {
        callID = c.pointee.call_id
        switch c.pointee.kind_case.rawValue {
        case 2:
            if let value: Request = WireLift.message(c.pointee.request) { kind = .request(value) }
        case 3:
            if let value: Response = WireLift.message(c.pointee.response) { kind = .response(value) }
        case 4:
            if let value: Cancel = WireLift.message(c.pointee.cancel) { kind = .cancel(value) }
        case 5:
            if let value: Ping = WireLift.message(c.pointee.ping) { kind = .ping(value) }
        case 6:
            if let value: Pong = WireLift.message(c.pointee.pong) { kind = .pong(value) }
        case 7:
            if let value: GoAway = WireLift.message(c.pointee.go_away) { kind = .goAway(value) }
        case 8:
            if let value: Settings = WireLift.message(c.pointee.settings) { kind = .settings(value) }
        default:
            kind = nil
        }
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Frame> {
        let c = arena.message(Pushwire__V1__Frame.self, pushwire__v1__frame__init)
        c.pointee.call_id = callID
        switch kind {
        case .request(let value)?:
            c.pointee.kind_case = .init(rawValue: 2)
            c.pointee.request = value.lower(arena)
        case .response(let value)?:
            c.pointee.kind_case = .init(rawValue: 3)
            c.pointee.response = value.lower(arena)
        case .cancel(let value)?:
            c.pointee.kind_case = .init(rawValue: 4)
            c.pointee.cancel = value.lower(arena)
        case .ping(let value)?:
            c.pointee.kind_case = .init(rawValue: 5)
            c.pointee.ping = value.lower(arena)
        case .pong(let value)?:
            c.pointee.kind_case = .init(rawValue: 6)
            c.pointee.pong = value.lower(arena)
        case .goAway(let value)?:
            c.pointee.kind_case = .init(rawValue: 7)
            c.pointee.go_away = value.lower(arena)
        case .settings(let value)?:
            c.pointee.kind_case = .init(rawValue: 8)
            c.pointee.settings = value.lower(arena)
        case nil:
            break
        }
        return c
    }
}

/// A key/value pair sent with a request, like an HTTP header. Keys are lower-case ASCII.
public struct Metadata: WireMessage, Hashable {
    /// Lower-case key, e.g. "authorization".
    public var key: String = ""
    /// The value, e.g. "Bearer 3f2a…".
    public var value: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        key: String = "",
        value: String = ""
    ) {
        self.key = key
        self.value = value
    }

    /// `pushwire.v1.Metadata`.
    public static let protoName = "pushwire.v1.Metadata"

    /// protoc-c's descriptor of `pushwire.v1.Metadata`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Metadata.self, pushwire__v1__metadata__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Metadata`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Metadata`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Metadata: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Metadata>) {
        key = WireLift.string(c.pointee.key)
        value = WireLift.string(c.pointee.value)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Metadata> {
        let c = arena.message(Pushwire__V1__Metadata.self, pushwire__v1__metadata__init)
        c.pointee.key = arena.string(key)
        c.pointee.value = arena.string(value)
        return c
    }
}

/// Client to server: starts call `call_id`.
public struct Request: WireMessage, Hashable {
    /// The method path, `/pushwire.v1.<Service>/<Method>`.
    public var method: String = ""
    /// Deadline in milliseconds from when the server reads the request; 0 means the server's default.
    public var timeoutMS: UInt32 = 0
    /// Request metadata; authentication travels as `authorization: Bearer <token>`.
    public var metadata: [Metadata] = []
    /// The method's request message, protobuf-encoded.
    public var message: [UInt8] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        method: String = "",
        timeoutMS: UInt32 = 0,
        metadata: [Metadata] = [],
        message: [UInt8] = []
    ) {
        self.method = method
        self.timeoutMS = timeoutMS
        self.metadata = metadata
        self.message = message
    }

    /// `pushwire.v1.Request`.
    public static let protoName = "pushwire.v1.Request"

    /// protoc-c's descriptor of `pushwire.v1.Request`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Request.self, pushwire__v1__request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Request`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Request`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Request: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Request>) {
        method = WireLift.string(c.pointee.method)
        timeoutMS = c.pointee.timeout_ms
        metadata = WireLift.messages(c.pointee.n_metadata, c.pointee.metadata)
        message = WireLift.bytes(c.pointee.message)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Request> {
        let c = arena.message(Pushwire__V1__Request.self, pushwire__v1__request__init)
        c.pointee.method = arena.string(method)
        c.pointee.timeout_ms = timeoutMS
        c.pointee.n_metadata = metadata.count
        c.pointee.metadata = arena.messages(metadata)
        c.pointee.message = arena.bytes(message)
        return c
    }
}

/// The outcome of a call: one of the 17 gRPC status codes and a human-readable message.
public struct Status: WireMessage, Hashable {
    /// 0 OK, 1 CANCELLED, 2 UNKNOWN, 3 INVALID_ARGUMENT, 4 DEADLINE_EXCEEDED, 5 NOT_FOUND,
    /// 6 ALREADY_EXISTS, 7 PERMISSION_DENIED, 8 RESOURCE_EXHAUSTED, 9 FAILED_PRECONDITION,
    /// 10 ABORTED, 11 OUT_OF_RANGE, 12 UNIMPLEMENTED, 13 INTERNAL, 14 UNAVAILABLE, 15 DATA_LOSS,
    /// 16 UNAUTHENTICATED.
    public var code: UInt32 = 0
    /// What went wrong, for a person; empty when `code` is 0.
    public var message: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        code: UInt32 = 0,
        message: String = ""
    ) {
        self.code = code
        self.message = message
    }

    /// `pushwire.v1.Status`.
    public static let protoName = "pushwire.v1.Status"

    /// protoc-c's descriptor of `pushwire.v1.Status`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Status.self, pushwire__v1__status__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Status`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Status`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Status: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Status>) {
        code = c.pointee.code
        message = WireLift.string(c.pointee.message)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Status> {
        let c = arena.message(Pushwire__V1__Status.self, pushwire__v1__status__init)
        c.pointee.code = code
        c.pointee.message = arena.string(message)
        return c
    }
}

/// Server to client: the answer to call `call_id`.
/// A response that carries `status` ends the call. A response without `status` is one item of a
/// server-streaming call and more responses follow (reserved: every v1 method is unary, so every
/// v1 response carries `status`).
public struct Response: WireMessage, Hashable {
    /// Present on the last response of a call; absent on streamed items.
    public var status: Status? = nil
    /// The method's response message, protobuf-encoded; empty unless `status.code` is 0.
    public var message: [UInt8] = []

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        status: Status? = nil,
        message: [UInt8] = []
    ) {
        self.status = status
        self.message = message
    }

    /// `pushwire.v1.Response`.
    public static let protoName = "pushwire.v1.Response"

    /// protoc-c's descriptor of `pushwire.v1.Response`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Response.self, pushwire__v1__response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Response`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Response`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Response: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Response>) {
        status = WireLift.message(c.pointee.status)
        message = WireLift.bytes(c.pointee.message)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Response> {
        let c = arena.message(Pushwire__V1__Response.self, pushwire__v1__response__init)
        if let value = status { c.pointee.status = value.lower(arena) }
        c.pointee.message = arena.bytes(message)
        return c
    }
}

/// Client to server: abandon call `call_id`. The server stops work on it where it can and answers
/// CANCELLED if it has not answered yet. Cancelling an unknown or finished call is ignored.
public struct Cancel: WireMessage, Hashable {

    /// The message with every field at its default.
    public init() {}

    /// `pushwire.v1.Cancel`.
    public static let protoName = "pushwire.v1.Cancel"

    /// protoc-c's descriptor of `pushwire.v1.Cancel`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Cancel.self, pushwire__v1__cancel__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Cancel`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Cancel`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Cancel: CStructBacked {
    init(lifting _: UnsafePointer<Pushwire__V1__Cancel>) {
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Cancel> {
        let c = arena.message(Pushwire__V1__Cancel.self, pushwire__v1__cancel__init)
        return c
    }
}

/// Either side: asks the peer to answer with a Pong carrying the same payload.
public struct Ping: WireMessage, Hashable {
    /// Opaque to the receiver; echoed in the Pong.
    public var payload: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        payload: UInt64 = 0
    ) {
        self.payload = payload
    }

    /// `pushwire.v1.Ping`.
    public static let protoName = "pushwire.v1.Ping"

    /// protoc-c's descriptor of `pushwire.v1.Ping`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Ping.self, pushwire__v1__ping__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Ping`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Ping`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Ping: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Ping>) {
        payload = c.pointee.payload
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Ping> {
        let c = arena.message(Pushwire__V1__Ping.self, pushwire__v1__ping__init)
        c.pointee.payload = payload
        return c
    }
}

/// The answer to a Ping.
public struct Pong: WireMessage, Hashable {
    /// The payload of the Ping being answered.
    public var payload: UInt64 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        payload: UInt64 = 0
    ) {
        self.payload = payload
    }

    /// `pushwire.v1.Pong`.
    public static let protoName = "pushwire.v1.Pong"

    /// protoc-c's descriptor of `pushwire.v1.Pong`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Pong.self, pushwire__v1__pong__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Pong`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Pong`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Pong: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Pong>) {
        payload = c.pointee.payload
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Pong> {
        let c = arena.message(Pushwire__V1__Pong.self, pushwire__v1__pong__init)
        c.pointee.payload = payload
        return c
    }
}

/// Server to client: no call with an id above `last_call_id` will be processed; calls up to it
/// finish normally. Sent on graceful shutdown and before closing for a protocol violation.
public struct GoAway: WireMessage, Hashable {
    /// The highest call id the server has accepted and will answer.
    public var lastCallID: UInt32 = 0
    /// Why: OK (0) for a graceful shutdown, otherwise the error that ends the connection.
    public var status: Status? = nil

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        lastCallID: UInt32 = 0,
        status: Status? = nil
    ) {
        self.lastCallID = lastCallID
        self.status = status
    }

    /// `pushwire.v1.GoAway`.
    public static let protoName = "pushwire.v1.GoAway"

    /// protoc-c's descriptor of `pushwire.v1.GoAway`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__GoAway.self, pushwire__v1__go_away__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GoAway`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.GoAway`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension GoAway: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__GoAway>) {
        lastCallID = c.pointee.last_call_id
        status = WireLift.message(c.pointee.status)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__GoAway> {
        let c = arena.message(Pushwire__V1__GoAway.self, pushwire__v1__go_away__init)
        c.pointee.last_call_id = lastCallID
        if let value = status { c.pointee.status = value.lower(arena) }
        return c
    }
}

/// Server to client, once, right after the server's preface: the limits the server enforces.
public struct Settings: WireMessage, Hashable {
    /// The largest frame payload (N of the length prefix) the server accepts, in bytes.
    public var maxFrameSize: UInt32 = 0
    /// How many calls may be in flight on one connection; the extra call fails RESOURCE_EXHAUSTED.
    public var maxConcurrentCalls: UInt32 = 0
    /// The server's name, e.g. "pushwired".
    public var serverName: String = ""
    /// The server's version, e.g. "0.1.0".
    public var serverVersion: String = ""
    /// The protocol version the server speaks: 1.
    public var protocolVersion: UInt32 = 0
    /// Idle connections are closed after this many milliseconds without a frame; 0 means never.
    public var idleTimeoutMS: UInt32 = 0

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        maxFrameSize: UInt32 = 0,
        maxConcurrentCalls: UInt32 = 0,
        serverName: String = "",
        serverVersion: String = "",
        protocolVersion: UInt32 = 0,
        idleTimeoutMS: UInt32 = 0
    ) {
        self.maxFrameSize = maxFrameSize
        self.maxConcurrentCalls = maxConcurrentCalls
        self.serverName = serverName
        self.serverVersion = serverVersion
        self.protocolVersion = protocolVersion
        self.idleTimeoutMS = idleTimeoutMS
    }

    /// `pushwire.v1.Settings`.
    public static let protoName = "pushwire.v1.Settings"

    /// protoc-c's descriptor of `pushwire.v1.Settings`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__Settings.self, pushwire__v1__settings__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Settings`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.Settings`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension Settings: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__Settings>) {
        maxFrameSize = c.pointee.max_frame_size
        maxConcurrentCalls = c.pointee.max_concurrent_calls
        serverName = WireLift.string(c.pointee.server_name)
        serverVersion = WireLift.string(c.pointee.server_version)
        protocolVersion = c.pointee.protocol_version
        idleTimeoutMS = c.pointee.idle_timeout_ms
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__Settings> {
        let c = arena.message(Pushwire__V1__Settings.self, pushwire__v1__settings__init)
        c.pointee.max_frame_size = maxFrameSize
        c.pointee.max_concurrent_calls = maxConcurrentCalls
        c.pointee.server_name = arena.string(serverName)
        c.pointee.server_version = arena.string(serverVersion)
        c.pointee.protocol_version = protocolVersion
        c.pointee.idle_timeout_ms = idleTimeoutMS
        return c
    }
}
