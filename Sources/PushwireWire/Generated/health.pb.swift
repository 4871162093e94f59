// generated — do not edit. Source: Protos/pushwire/v1/health.proto. Regenerate with Scripts/generate.

import CProtobufC
import PushwireProtoC

/// The serving status of a server or a service.
///
/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and
/// encodes back unchanged.
public enum ServingStatus: RawRepresentable, CaseIterable, Sendable, Hashable {
    /// Not set; never sent by the server.
    case unspecified
    /// Accepting and answering calls.
    case serving
    /// Up but not taking calls (draining on shutdown, or its store is unavailable).
    case notServing
    /// The named service does not exist on this server.
    case serviceUnknown
    /// A value this version does not know.
    case unrecognized(Int32)

    /// The known values.
    public static let allCases: [ServingStatus] = [.unspecified, .serving, .notServing, .serviceUnknown]

    /// The default: `.unspecified`.
    public init() { self = .unspecified }

    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .unspecified
        case 1: self = .serving
        case 2: self = .notServing
        case 3: self = .serviceUnknown
        default: self = .unrecognized(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: Int32 {
        switch self {
        case .unspecified: return 0
        case .serving: return 1
        case .notServing: return 2
        case .serviceUnknown: return 3
        case .unrecognized(let value): return value
        }
    }

    /// Equal when the wire values are: `.unrecognized(3)` equals `.serviceUnknown`.
    public static func == (lhs: ServingStatus, rhs: ServingStatus) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Hashes the wire value.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// The request of `Health.Check`.
public struct HealthCheckRequest: WireMessage, Hashable {
    /// A service name such as "pushwire.v1.Devices"; empty asks about the server as a whole.
    public var service: String = ""

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        service: String = ""
    ) {
        self.service = service
    }

    /// `pushwire.v1.HealthCheckRequest`.
    public static let protoName = "pushwire.v1.HealthCheckRequest"

    /// protoc-c's descriptor of `pushwire.v1.HealthCheckRequest`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__HealthCheckRequest.self, pushwire__v1__health_check_request__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.HealthCheckRequest`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.HealthCheckRequest`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension HealthCheckRequest: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__HealthCheckRequest>) {
        service = WireLift.string(c.pointee.service)
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__HealthCheckRequest> {
        let c = arena.message(Pushwire__V1__HealthCheckRequest.self, pushwire__v1__health_check_request__init)
        c.pointee.service = arena.string(service)
        return c
    }
}

/// The response of `Health.Check`.
public struct HealthCheckResponse: WireMessage, Hashable {
    /// Whether the server or the named service is serving.
    public var status: ServingStatus = .init()

    /// The message with every field at its default.
    public init() {}

    /// Creates the message with the given fields; the others keep their defaults.
    public init(
        status: ServingStatus = .init()
    ) {
        self.status = status
    }

    /// `pushwire.v1.HealthCheckResponse`.
    public static let protoName = "pushwire.v1.HealthCheckResponse"

    /// protoc-c's descriptor of `pushwire.v1.HealthCheckResponse`.
    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }

    // Safe: a pointer to protoc-c's immutable static descriptor, read once.
    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(Pushwire__V1__HealthCheckResponse.self, pushwire__v1__health_check_response__init)

    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.HealthCheckResponse`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Decodes the message from its protobuf encoding in an array.
    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `pushwire.v1.HealthCheckResponse`.
    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {
        self = try WireCodec.decode(bytes)
    }

    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length
    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).
    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)
    }
}

extension HealthCheckResponse: CStructBacked {
    init(lifting c: UnsafePointer<Pushwire__V1__HealthCheckResponse>) {
        status = ServingStatus(rawValue: Int32(truncatingIfNeeded: c.pointee.status.rawValue))
    }

    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<Pushwire__V1__HealthCheckResponse> {
        let c = arena.message(Pushwire__V1__HealthCheckResponse.self, pushwire__v1__health_check_response__init)
        c.pointee.status = .init(rawValue: .init(truncatingIfNeeded: status.rawValue))
        return c
    }
}
