import CProtobufC
import Foundation
import PushwireWire

/// JSON → protobuf, driven by a protobuf-c descriptor: the wire format is written directly from
/// the JSON value, so no C structs are built and nothing needs freeing.
enum ProtoJSONEncoder {
    static func encode(_ json: JSONValue, as message: MessageInfo, path: String, into out: inout [UInt8]) throws(ProtoJSONError) {
        guard case .object(let members) = json else {
            throw ProtoJSONError("\(path.isEmpty ? message.name : path): expected an object, got \(json.kindName)")
        }
        var oneofs: [Int: String] = [:]
        for (key, value) in members {
            let fieldPath = path.isEmpty ? key : "\(path).\(key)"
            guard let field = message.field(named: key) else {
                throw ProtoJSONError("unknown field \"\(fieldPath)\" in \(message.name)")
            }
            if value == .null { continue } // proto3 JSON: null means the default
            if field.isOneofMember {
                if let other = oneofs[field.quantifierOffset] {
                    throw ProtoJSONError("\(fieldPath): \"\(other)\" and \"\(key)\" are members of the same oneof; set one")
                }
                oneofs[field.quantifierOffset] = key
            }
            if field.isRepeated {
                guard case .array(let items) = value else {
                    throw ProtoJSONError("\(fieldPath): expected an array, got \(value.kindName)")
                }
                for (i, item) in items.enumerated() {
                    try encodeValue(item, field: field, path: "\(fieldPath)[\(i)]", into: &out)
                }
            } else {
                try encodeValue(value, field: field, path: fieldPath, into: &out)
            }
        }
    }

    private static func encodeValue(_ value: JSONValue, field: FieldInfo, path: String, into out: inout [UInt8]) throws(ProtoJSONError) {
        let n = field.number
        switch field.type {
        case PROTOBUF_C_TYPE_INT32:
            let v = try signed(value, path: path, min: Int64(Int32.min), max: Int64(Int32.max))
            varint(n, UInt64(bitPattern: v), &out)
        case PROTOBUF_C_TYPE_SINT32:
            let v = Int32(try signed(value, path: path, min: Int64(Int32.min), max: Int64(Int32.max)))
            varint(n, UInt64(UInt32(bitPattern: (v << 1) ^ (v >> 31))), &out)
        case PROTOBUF_C_TYPE_SFIXED32:
            let v = Int32(try signed(value, path: path, min: Int64(Int32.min), max: Int64(Int32.max)))
            fixed32(n, UInt32(bitPattern: v), &out)
        case PROTOBUF_C_TYPE_INT64:
            varint(n, UInt64(bitPattern: try signed(value, path: path, min: .min, max: .max)), &out)
        case PROTOBUF_C_TYPE_SINT64:
            let v = try signed(value, path: path, min: .min, max: .max)
            varint(n, UInt64(bitPattern: (v << 1) ^ (v >> 63)), &out)
        case PROTOBUF_C_TYPE_SFIXED64:
            fixed64(n, UInt64(bitPattern: try signed(value, path: path, min: .min, max: .max)), &out)
        case PROTOBUF_C_TYPE_UINT32:
            varint(n, try unsigned(value, path: path, max: UInt64(UInt32.max)), &out)
        case PROTOBUF_C_TYPE_FIXED32:
            fixed32(n, UInt32(try unsigned(value, path: path, max: UInt64(UInt32.max))), &out)
        case PROTOBUF_C_TYPE_UINT64:
            varint(n, try unsigned(value, path: path, max: .max), &out)
        case PROTOBUF_C_TYPE_FIXED64:
            fixed64(n, try unsigned(value, path: path, max: .max), &out)
        case PROTOBUF_C_TYPE_FLOAT:
            fixed32(n, Float(try double(value, path: path)).bitPattern, &out)
        case PROTOBUF_C_TYPE_DOUBLE:
            fixed64(n, try double(value, path: path).bitPattern, &out)
        case PROTOBUF_C_TYPE_BOOL:
            guard case .bool(let b) = value else { throw ProtoJSONError("\(path): expected true or false, got \(value.kindName)") }
            varint(n, b ? 1 : 0, &out)
        case PROTOBUF_C_TYPE_ENUM:
            varint(n, UInt64(bitPattern: Int64(try enumNumber(value, field: field, path: path))), &out)
        case PROTOBUF_C_TYPE_STRING:
            guard case .string(let s) = value else { throw ProtoJSONError("\(path): expected a string, got \(value.kindName)") }
            if s.utf8.contains(0) { throw ProtoJSONError("\(path): strings may not contain NUL") }
            ProtoWriter.appendBytes(n, s.utf8, to: &out)
        case PROTOBUF_C_TYPE_BYTES:
            ProtoWriter.appendBytes(n, try base64(value, path: path), to: &out)
        case PROTOBUF_C_TYPE_MESSAGE:
            guard let sub = field.message else { throw ProtoJSONError("\(path): message field without descriptor") }
            var nested: [UInt8] = []
            try encode(value, as: sub, path: path, into: &nested)
            ProtoWriter.appendBytes(n, nested, to: &out)
        default:
            throw ProtoJSONError("\(path): unsupported field type \(field.type.rawValue)")
        }
    }

    private static func varint(_ field: UInt32, _ value: UInt64, _ out: inout [UInt8]) {
        ProtoWriter.appendTag(field, ProtoWriter.varint, to: &out)
        ProtoWriter.appendVarint(value, to: &out)
    }

    private static func fixed32(_ field: UInt32, _ value: UInt32, _ out: inout [UInt8]) {
        ProtoWriter.appendTag(field, ProtoWriter.fixed32, to: &out)
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    private static func fixed64(_ field: UInt32, _ value: UInt64, _ out: inout [UInt8]) {
        ProtoWriter.appendTag(field, ProtoWriter.fixed64, to: &out)
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// The text of a number given as a JSON number or a string (proto3 JSON accepts both).
    private static func numberText(_ value: JSONValue, path: String) throws(ProtoJSONError) -> String {
        switch value {
        case .number(let text): return text
        case .string(let text):
            // Foundation's trimming costs more than the rest of a small message's encoding.
            guard text.first == " " || text.last == " " || text.first == "\t" || text.last == "\t" else { return text }
            return text.trimmingCharacters(in: .whitespaces)
        default: throw ProtoJSONError("\(path): expected a number, got \(value.kindName)")
        }
    }

    private static func signed(_ value: JSONValue, path: String, min: Int64, max: Int64) throws(ProtoJSONError) -> Int64 {
        let text = try numberText(value, path: path)
        let parsed: Int64? = Int64(text) ?? Double(text).flatMap { $0.rounded() == $0 ? Int64(exactly: $0) : nil }
        guard let v = parsed, v >= min, v <= max else {
            throw ProtoJSONError("\(path): \(text) is not an integer in \(min)…\(max)")
        }
        return v
    }

    private static func unsigned(_ value: JSONValue, path: String, max: UInt64) throws(ProtoJSONError) -> UInt64 {
        let text = try numberText(value, path: path)
        let parsed: UInt64? = UInt64(text) ?? Double(text).flatMap { $0.rounded() == $0 ? UInt64(exactly: $0) : nil }
        guard let v = parsed, v <= max else {
            throw ProtoJSONError("\(path): \(text) is not an integer in 0…\(max)")
        }
        return v
    }

    private static func double(_ value: JSONValue, path: String) throws(ProtoJSONError) -> Double {
        let text = try numberText(value, path: path)
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard let v = Double(text) else { throw ProtoJSONError("\(path): \(text) is not a number") }
            return v
        }
    }

    private static func enumNumber(_ value: JSONValue, field: FieldInfo, path: String) throws(ProtoJSONError) -> Int32 {
        guard let info = field.enumInfo else { throw ProtoJSONError("\(path): enum field without descriptor") }
        if case .string(let name) = value {
            if let number = info.number(of: name) { return number }
            if let number = Int32(name) { return number }
            let known = info.values.map(\.name).joined(separator: ", ")
            throw ProtoJSONError("\(path): unknown value \"\(name)\"; expected one of \(known)")
        }
        return Int32(try signed(value, path: path, min: Int64(Int32.min), max: Int64(Int32.max)))
    }

    private static func base64(_ value: JSONValue, path: String) throws(ProtoJSONError) -> [UInt8] {
        guard case .string(var text) = value else { throw ProtoJSONError("\(path): expected a base64 string, got \(value.kindName)") }
        // proto3 JSON accepts both the standard and the URL-safe alphabet, padded or not.
        text = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else { throw ProtoJSONError("\(path): not valid base64") }
        return [UInt8](data)
    }
}
