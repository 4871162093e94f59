import CProtobufC
import Foundation

/// protobuf → JSON: unpacks with protobuf-c (which validates the bytes), walks the C struct by
/// the descriptor's offsets, and frees the unpacked message exactly once before returning.
enum ProtoJSONDecoder {
    static func decode(_ bytes: [UInt8], as message: MessageInfo, emitDefaults: Bool) throws(ProtoJSONError) -> JSONValue {
        let unpacked = bytes.withUnsafeBufferPointer { buffer in
            protobuf_c_message_unpack(message.descriptor, nil, buffer.count, buffer.baseAddress)
        }
        guard let unpacked else { throw ProtoJSONError("the bytes are not a valid \(message.name)") }
        defer { protobuf_c_message_free_unpacked(unpacked, nil) }
        return object(UnsafeRawPointer(unpacked), message, emitDefaults: emitDefaults)
    }

    private static func object(_ base: UnsafeRawPointer, _ message: MessageInfo, emitDefaults: Bool) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        for field in message.fields {
            let slot = base + field.offset
            if field.isRepeated {
                let count = base.load(fromByteOffset: field.quantifierOffset, as: Int.self)
                if count == 0 && !emitDefaults { continue }
                var items: [JSONValue] = []
                if count > 0, let array = slot.load(as: UnsafeRawPointer?.self) {
                    for i in 0..<count { items.append(value(array + i * field.elementSize, field, emitDefaults: emitDefaults)) }
                }
                members.append((field.jsonName, .array(items)))
                continue
            }
            if field.isOneofMember {
                guard base.load(fromByteOffset: field.quantifierOffset, as: UInt32.self) == field.number else { continue }
            } else if field.type == PROTOBUF_C_TYPE_MESSAGE {
                guard slot.load(as: UnsafeRawPointer?.self) != nil else { continue }
            } else if field.label == PROTOBUF_C_LABEL_OPTIONAL && field.type != PROTOBUF_C_TYPE_STRING {
                guard base.load(fromByteOffset: field.quantifierOffset, as: protobuf_c_boolean.self) != 0 else { continue }
            } else if !emitDefaults && isZero(slot, field) {
                continue // proto3 JSON leaves out fields at their default
            }
            members.append((field.jsonName, value(slot, field, emitDefaults: emitDefaults)))
        }
        return .object(members)
    }

    private static func isZero(_ slot: UnsafeRawPointer, _ field: FieldInfo) -> Bool {
        switch field.type {
        case PROTOBUF_C_TYPE_STRING:
            guard let s = slot.load(as: UnsafePointer<CChar>?.self) else { return true }
            return s.pointee == 0
        case PROTOBUF_C_TYPE_BYTES:
            return slot.load(as: ProtobufCBinaryData.self).len == 0
        case PROTOBUF_C_TYPE_FLOAT:
            return slot.load(as: Float.self) == 0 && slot.load(as: Float.self).sign == .plus
        case PROTOBUF_C_TYPE_DOUBLE:
            return slot.load(as: Double.self) == 0 && slot.load(as: Double.self).sign == .plus
        default:
            return field.elementSize == 8 ? slot.load(as: UInt64.self) == 0 : slot.load(as: UInt32.self) == 0
        }
    }

    private static func value(_ slot: UnsafeRawPointer, _ field: FieldInfo, emitDefaults: Bool) -> JSONValue {
        switch field.type {
        case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SFIXED32:
            return .number(String(slot.load(as: Int32.self)))
        case PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_FIXED32:
            return .number(String(slot.load(as: UInt32.self)))
        case PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64, PROTOBUF_C_TYPE_SFIXED64:
            return .string(String(slot.load(as: Int64.self))) // proto3 JSON: 64-bit integers as strings
        case PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64:
            return .string(String(slot.load(as: UInt64.self)))
        case PROTOBUF_C_TYPE_FLOAT:
            return floating(Double(slot.load(as: Float.self)))
        case PROTOBUF_C_TYPE_DOUBLE:
            return floating(slot.load(as: Double.self))
        case PROTOBUF_C_TYPE_BOOL:
            return .bool(slot.load(as: protobuf_c_boolean.self) != 0)
        case PROTOBUF_C_TYPE_ENUM:
            let number = slot.load(as: Int32.self)
            if let name = field.enumInfo?.name(of: number) { return .string(name) }
            return .number(String(number))
        case PROTOBUF_C_TYPE_STRING:
            guard let s = slot.load(as: UnsafePointer<CChar>?.self) else { return .string("") }
            return .string(String(cString: s))
        case PROTOBUF_C_TYPE_BYTES:
            let data = slot.load(as: ProtobufCBinaryData.self)
            guard data.len > 0, let p = data.data else { return .string("") }
            return .string(Data(bytes: p, count: data.len).base64EncodedString())
        case PROTOBUF_C_TYPE_MESSAGE:
            guard let sub = field.message, let pointer = slot.load(as: UnsafeRawPointer?.self) else { return .object([]) }
            return object(pointer, sub, emitDefaults: emitDefaults)
        default:
            return .null
        }
    }

    private static func floating(_ v: Double) -> JSONValue {
        if v.isNaN { return .string("NaN") }
        if v.isInfinite { return .string(v > 0 ? "Infinity" : "-Infinity") }
        if v == v.rounded(), abs(v) < 1e15 { return .number(String(Int64(v))) }
        return .number("\(v)")
    }
}
