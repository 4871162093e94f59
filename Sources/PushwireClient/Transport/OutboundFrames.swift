/// Encodes the frames a client sends (`Request`, `Cancel`, `Ping`, `Pong`) straight onto the
/// connection's output buffer, length prefix included. Field numbers are those of
/// Protos/pushwire/v1/rpc.proto; `ClientFrameTests` checks the bytes against protobuf-c's decoder.
enum OutboundFrames {
    /// Appends a `Frame { call_id, request { method, timeout_ms, metadata, message } }`.
    static func appendRequest(
        callID: UInt32, method: String, timeoutMS: UInt32,
        metadata: [(key: String, value: String)], message: UnsafeRawBufferPointer,
        to buffer: inout [UInt8]
    ) {
        let methodCount = method.utf8.count
        var requestSize = ProtoWriter.delimitedSize(methodCount)
        if timeoutMS != 0 { requestSize += 1 + ProtoWriter.varintSize(UInt64(timeoutMS)) }
        for entry in metadata {
            requestSize += ProtoWriter.delimitedSize(metadataSize(entry))
        }
        if message.count > 0 { requestSize += ProtoWriter.delimitedSize(message.count) }
        var frameSize = ProtoWriter.delimitedSize(requestSize)
        if callID != 0 { frameSize += 1 + ProtoWriter.varintSize(UInt64(callID)) }

        buffer.reserveCapacity(buffer.count + 4 + frameSize)
        ProtoWriter.appendLengthPrefix(frameSize, to: &buffer)
        if callID != 0 {
            ProtoWriter.appendTag(1, ProtoWriter.varint, to: &buffer)
            ProtoWriter.appendVarint(UInt64(callID), to: &buffer)
        }
        ProtoWriter.appendTag(2, ProtoWriter.lengthDelimited, to: &buffer)
        ProtoWriter.appendVarint(UInt64(requestSize), to: &buffer)
        ProtoWriter.appendBytes(1, method.utf8, to: &buffer)
        if timeoutMS != 0 {
            ProtoWriter.appendTag(2, ProtoWriter.varint, to: &buffer)
            ProtoWriter.appendVarint(UInt64(timeoutMS), to: &buffer)
        }
        for entry in metadata {
            ProtoWriter.appendTag(3, ProtoWriter.lengthDelimited, to: &buffer)
            ProtoWriter.appendVarint(UInt64(metadataSize(entry)), to: &buffer)
            ProtoWriter.appendBytes(1, entry.key.utf8, to: &buffer)
            ProtoWriter.appendBytes(2, entry.value.utf8, to: &buffer)
        }
        if message.count > 0 {
            ProtoWriter.appendTag(4, ProtoWriter.lengthDelimited, to: &buffer)
            ProtoWriter.appendVarint(UInt64(message.count), to: &buffer)
            buffer.append(contentsOf: message)
        }
    }

    private static func metadataSize(_ entry: (key: String, value: String)) -> Int {
        ProtoWriter.delimitedSize(entry.key.utf8.count) + ProtoWriter.delimitedSize(entry.value.utf8.count)
    }

    /// Appends a `Frame { call_id, cancel {} }`.
    static func appendCancel(callID: UInt32, to buffer: inout [UInt8]) {
        let frameSize = 1 + ProtoWriter.varintSize(UInt64(callID)) + 2
        ProtoWriter.appendLengthPrefix(frameSize, to: &buffer)
        ProtoWriter.appendTag(1, ProtoWriter.varint, to: &buffer)
        ProtoWriter.appendVarint(UInt64(callID), to: &buffer)
        ProtoWriter.appendTag(4, ProtoWriter.lengthDelimited, to: &buffer)
        buffer.append(0)
    }

    /// Appends a `Frame { ping { payload } }` (field 5) or, with `pong`, a `Frame { pong { payload } }` (field 6).
    static func appendPing(_ payload: UInt64, pong: Bool = false, to buffer: inout [UInt8]) {
        let inner = payload == 0 ? 0 : 1 + ProtoWriter.varintSize(payload)
        ProtoWriter.appendLengthPrefix(ProtoWriter.delimitedSize(inner), to: &buffer)
        ProtoWriter.appendTag(pong ? 6 : 5, ProtoWriter.lengthDelimited, to: &buffer)
        ProtoWriter.appendVarint(UInt64(inner), to: &buffer)
        if payload != 0 {
            ProtoWriter.appendTag(1, ProtoWriter.varint, to: &buffer)
            ProtoWriter.appendVarint(payload, to: &buffer)
        }
    }
}
