import CProtobufC
import XCTest
@testable import PushwireWire

/// Builds canonical encodings (as protobuf-c packs them) with every field set, for any message,
/// from protobuf-c's runtime descriptor: the round-trip tests cover every field of every message
/// without a hand-written value per type.
enum MaximalEncoding {
    /// A unicode string with 1-, 2-, 3- and 4-byte UTF-8 sequences.
    static let text = "héllo · wörld ✓ 日本語 🚀 e\u{301}"

    /// The encoding of a value of `descriptor` with every field set; for each oneof, the member at
    /// `oneofChoice` (modulo its size) is set.
    static func bytes(
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, oneofChoice: Int = 0, depth: Int = 1, maxDepth: Int = 6
    ) -> [UInt8] {
        let d = descriptor.pointee
        let fields = (0..<Int(d.n_fields)).map { d.fields + $0 }.sorted { $0.pointee.id < $1.pointee.id }
        // Members of one oneof share its `_case` member (quantifier_offset).
        var oneofs: [UInt32: [UInt32]] = [:]
        for f in fields where f.pointee.flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) != 0 {
            oneofs[f.pointee.quantifier_offset, default: []].append(f.pointee.id)
        }
        var out: [UInt8] = []
        for f in fields {
            let field = f.pointee
            if field.flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) != 0,
               let members = oneofs[field.quantifier_offset],
               members[oneofChoice % members.count] != field.id {
                continue
            }
            let repeated = field.label == PROTOBUF_C_LABEL_REPEATED
            let copies = repeated ? 2 : 1
            if let scalar = scalarValue(field) {
                if repeated && field.flags & UInt32(PROTOBUF_C_FIELD_FLAG_PACKED.rawValue) != 0 {
                    let payload = (0..<copies).flatMap { _ in scalar.bytes }
                    out += key(field.id, 2) + varint(UInt64(payload.count)) + payload
                } else {
                    for _ in 0..<copies { out += key(field.id, scalar.wireType) + scalar.bytes }
                }
                continue
            }
            for copy in 0..<copies {
                let payload: [UInt8]
                switch field.type {
                case PROTOBUF_C_TYPE_STRING: payload = Array("\(text) #\(field.id).\(copy)".utf8)
                case PROTOBUF_C_TYPE_BYTES: payload = [0, 1, 0x7f, 0x80, 0xff, UInt8(truncatingIfNeeded: field.id)]
                default:
                    let sub = field.descriptor.assumingMemoryBound(to: ProtobufCMessageDescriptor.self)
                    payload = depth < maxDepth ? bytes(sub, oneofChoice: oneofChoice, depth: depth + 1, maxDepth: maxDepth) : []
                }
                out += key(field.id, 2) + varint(UInt64(payload.count)) + payload
            }
        }
        return out
    }

    private static func scalarValue(_ field: ProtobufCFieldDescriptor) -> (wireType: UInt32, bytes: [UInt8])? {
        let n = UInt64(field.id)
        switch field.type {
        case PROTOBUF_C_TYPE_BOOL: return (0, [1])
        case PROTOBUF_C_TYPE_ENUM: return (0, [1])
        case PROTOBUF_C_TYPE_UINT32: return (0, varint(300 + n))
        case PROTOBUF_C_TYPE_UINT64: return (0, varint((1 << 40) + n))
        case PROTOBUF_C_TYPE_INT32: return (0, varint(UInt64(bitPattern: -1000 - Int64(n))))
        case PROTOBUF_C_TYPE_INT64: return (0, varint(UInt64(bitPattern: -(1 << 41) - Int64(n))))
        case PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SINT64: return (0, varint(2 * n + 1))
        case PROTOBUF_C_TYPE_FIXED32, PROTOBUF_C_TYPE_SFIXED32, PROTOBUF_C_TYPE_FLOAT: return (5, [1, 2, 3, UInt8(n)])
        case PROTOBUF_C_TYPE_FIXED64, PROTOBUF_C_TYPE_SFIXED64, PROTOBUF_C_TYPE_DOUBLE: return (1, [1, 2, 3, 4, 5, 6, 7, UInt8(n)])
        default: return nil
        }
    }

    /// The number of oneof choices worth trying for `descriptor` (the largest oneof, at least 1).
    static func oneofChoices(_ descriptor: UnsafePointer<ProtobufCMessageDescriptor>) -> Int {
        let d = descriptor.pointee
        var counts: [UInt32: Int] = [:]
        for i in 0..<Int(d.n_fields) where d.fields[i].flags & UInt32(PROTOBUF_C_FIELD_FLAG_ONEOF.rawValue) != 0 {
            counts[d.fields[i].quantifier_offset, default: 0] += 1
        }
        return max(1, counts.values.max() ?? 1)
    }
}

/// Protobuf encoding pieces for hand-made test inputs.
func varint(_ value: UInt64) -> [UInt8] {
    var v = value
    var out: [UInt8] = []
    while v >= 0x80 {
        out.append(UInt8(v & 0x7f) | 0x80)
        v >>= 7
    }
    out.append(UInt8(v))
    return out
}

/// A field key.
func key(_ number: UInt32, _ wireType: UInt32) -> [UInt8] {
    varint(UInt64(number) << 3 | UInt64(wireType))
}

/// A length-delimited field.
func lengthDelimited(_ number: UInt32, _ payload: [UInt8]) -> [UInt8] {
    key(number, 2) + varint(UInt64(payload.count)) + payload
}

/// What protobuf-c alone makes of `bytes`: its re-packed encoding, or nil when it rejects them.
func rawProtobufC(_ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, _ bytes: [UInt8]) -> [UInt8]? {
    bytes.withUnsafeBufferPointer { input -> [UInt8]? in
        guard let message = protobuf_c_message_unpack(descriptor, nil, input.count, input.baseAddress) else { return nil }
        defer { protobuf_c_message_free_unpacked(message, nil) }
        var out = [UInt8](repeating: 0, count: protobuf_c_message_get_packed_size(message))
        _ = out.withUnsafeMutableBufferPointer { protobuf_c_message_pack(message, $0.baseAddress) }
        return out
    }
}

/// A deterministic random generator (SplitMix64), so failures reproduce; shared by the tests of this target.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// Decodes `bytes` as `M`, returning the error kind on failure.
func decodeResult<M: WireMessage>(_ type: M.Type, _ bytes: [UInt8]) -> Result<M, WireDecodingError> {
    do throws(WireDecodingError) {
        return .success(try M(decoding: bytes))
    } catch {
        return .failure(error)
    }
}

/// The error kind `M` gives for `bytes`, or nil when they decode.
func decodingErrorKind<M: WireMessage>(_ type: M.Type, _ bytes: [UInt8]) -> WireDecodingError.Kind? {
    if case .failure(let error) = decodeResult(type, bytes) { return error.kind }
    return nil
}
