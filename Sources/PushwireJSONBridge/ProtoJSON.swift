import CProtobufC

/// The JSON bridge of the CLI and the bench: proto3 JSON ↔ protobuf for any message of the
/// contract, driven by protobuf-c's descriptors, so no method needs code of its own.
///
/// Mapping (proto3 JSON, as grpcurl): lowerCamel field names on output, lowerCamel or proto
/// names on input; enums by name on output, by name (full or without the enum's prefix) or
/// number on input; 64-bit integers as strings on output, strings or numbers on input; bytes as
/// base64 (standard or URL-safe); fields at their default omitted on output unless
/// `emitDefaults`; an unknown key is an error naming it.
public enum ProtoJSON {
    /// Encodes a JSON text as the protobuf message `descriptor` describes.
    /// - Throws: `ProtoJSONError` for invalid JSON, an unknown key, or a value of the wrong kind.
    public static func encode(_ json: String, as descriptor: UnsafePointer<ProtobufCMessageDescriptor>) throws(ProtoJSONError) -> [UInt8] {
        try encode(JSONParser.parse(json), as: descriptor)
    }

    /// Encodes a parsed JSON value as the protobuf message `descriptor` describes.
    /// - Throws: `ProtoJSONError` for an unknown key or a value of the wrong kind.
    public static func encode(_ json: JSONValue, as descriptor: UnsafePointer<ProtobufCMessageDescriptor>) throws(ProtoJSONError) -> [UInt8] {
        var out: [UInt8] = []
        try ProtoJSONEncoder.encode(json, as: MessageInfo(descriptor: descriptor), path: "", into: &out)
        return out
    }

    /// Decodes protobuf bytes of the message `descriptor` describes into JSON.
    /// - Throws: `ProtoJSONError` when the bytes are not a valid encoding of that message.
    public static func decode(_ bytes: [UInt8], as descriptor: UnsafePointer<ProtobufCMessageDescriptor>, emitDefaults: Bool = false) throws(ProtoJSONError) -> JSONValue {
        try ProtoJSONDecoder.decode(bytes, as: MessageInfo(descriptor: descriptor), emitDefaults: emitDefaults)
    }

    /// Decodes protobuf bytes into JSON text, indented when `pretty`.
    /// - Throws: `ProtoJSONError` when the bytes are not a valid encoding of that message.
    public static func decodeToString(_ bytes: [UInt8], as descriptor: UnsafePointer<ProtobufCMessageDescriptor>, pretty: Bool = true, emitDefaults: Bool = false) throws(ProtoJSONError) -> String {
        JSONWriter.write(try decode(bytes, as: descriptor, emitDefaults: emitDefaults), pretty: pretty)
    }

    /// Parses JSON text.
    /// - Throws: `ProtoJSONError` for invalid JSON.
    public static func parse(_ json: String) throws(ProtoJSONError) -> JSONValue {
        try JSONParser.parse(json)
    }

    /// Serializes a JSON value, indented when `pretty`.
    public static func serialize(_ value: JSONValue, pretty: Bool = true) -> String {
        JSONWriter.write(value, pretty: pretty)
    }
}
