import CProtobufC
import PushwireWire

/// The reference decoder of the differential targets: protobuf-c's own unpack, without Pushwire's
/// validator, then its pack of what it read (nil when protobuf-c refuses the bytes).
public func protobufCRepack(_ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, _ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    let data = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    guard let message = protobuf_c_message_unpack(descriptor, nil, bytes.count, data) else { return nil }
    defer { protobuf_c_message_free_unpacked(message, nil) }
    var out = [UInt8](repeating: 0, count: protobuf_c_message_get_packed_size(message))
    _ = out.withUnsafeMutableBufferPointer { protobuf_c_message_pack(message, $0.baseAddress) }
    return out
}

/// The regular decode of `M` (Pushwire's validator, then protobuf-c's unpack and the generated
/// wrapper), as a `Result` so that oracles can compare outcomes.
public func regularDecode<M: WireMessage>(_ type: M.Type, _ bytes: UnsafeRawBufferPointer) -> Result<M, WireDecodingError> {
    Result { () throws(WireDecodingError) in try M(decoding: bytes) }
}
