/// The hot frames, encoded by hand straight onto an output buffer, length prefix included: the
/// server's responses, the client's requests, cancels, pings and pongs, and the load generator's
/// requests from prebuilt `Request` bytes.
///
/// Why not the generated `Frame` wrapper and protobuf-c: these frames are written once per call,
/// and building the C structs and packing them cost about a fifth of a small call on the server
/// (measured with pushwire-bench before the hand encoders landed); a load generator must also cost
/// far less per call than the server it measures. The output is byte for byte what
/// `Frame.….encode(appendingTo:lengthPrefixed: true)` (protobuf-c) writes — proto3 leaves zero and
/// empty scalars out, fields are in number order — and `HotFramesTests` pins every function to it.
/// Field numbers are those of Protos/pushwire/v1/rpc.proto.
public enum HotFrames {
    /// Appends `Frame { call_id, response { status { code, message }, message: body } }`.
    ///
    /// The status is always present, even for OK: a response without one is a streamed item.
    /// `@inlinable` so the server's connection gets it inlined and specialized as when it lived in
    /// the runtime: it runs once per call.
    ///
    /// A frame larger than `maxFrameSize` is never written (docs/PROTOCOL.md: the server never
    /// sends a frame above its own limit): the call is answered RESOURCE_EXHAUSTED instead, with a
    /// message saying how large the answer was — or, if even that would not fit, without one.
    /// - Returns: false when the answer was replaced by RESOURCE_EXHAUSTED.
    @inlinable
    @discardableResult
    public static func appendResponseFrame(
        callID: UInt32, status: StatusCode, message: String, body: [UInt8], maxFrameSize: Int = Int.max, to output: inout [UInt8]
    ) -> Bool {
        var message = message
        let refusedSize: Int? = message.withUTF8 { text in
            let code = UInt64(status.rawValue)
            let statusSize = ProtoWriter.varintFieldSize(code)
                + (text.isEmpty ? 0 : ProtoWriter.delimitedSize(text.count))
            let responseSize = ProtoWriter.delimitedSize(statusSize)
                + (body.isEmpty ? 0 : ProtoWriter.delimitedSize(body.count))
            let frameSize = ProtoWriter.varintFieldSize(UInt64(callID)) + ProtoWriter.delimitedSize(responseSize)
            if frameSize > maxFrameSize { return frameSize }
            output.reserveCapacity(output.count + 4 + frameSize)
            ProtoWriter.appendLengthPrefix(frameSize, to: &output)
            ProtoWriter.appendVarintField(1, UInt64(callID), to: &output)  // Frame.call_id
            output.append(0x1A)  // Frame.response (3), length-delimited
            ProtoWriter.appendVarint(UInt64(responseSize), to: &output)
            output.append(0x0A)  // Response.status (1), length-delimited
            ProtoWriter.appendVarint(UInt64(statusSize), to: &output)
            ProtoWriter.appendVarintField(1, code, to: &output)  // Status.code
            if !text.isEmpty { ProtoWriter.appendBytes(2, text, to: &output) }  // Status.message
            if !body.isEmpty { ProtoWriter.appendBytes(2, body, to: &output) }  // Response.message
            return nil
        }
        guard let refusedSize else { return true }
        var why = "the answer (a frame of \(refusedSize) bytes) exceeds the frame limit of \(maxFrameSize) bytes"
        // pushwired's smallest limit, 64 bytes, fits a bare status but not this explanation.
        if responseFrameSize(callID: callID, status: .resourceExhausted, messageBytes: why.utf8.count, bodyBytes: 0) > maxFrameSize {
            why = ""
        }
        appendResponseFrame(callID: callID, status: .resourceExhausted, message: why, body: [], to: &output)
        return false
    }

    /// The size of the frame `appendResponseFrame` writes (without its 4-byte length prefix).
    @inlinable
    public static func responseFrameSize(callID: UInt32, status: StatusCode, messageBytes: Int, bodyBytes: Int) -> Int {
        let statusSize = ProtoWriter.varintFieldSize(UInt64(status.rawValue)) + (messageBytes == 0 ? 0 : ProtoWriter.delimitedSize(messageBytes))
        let responseSize = ProtoWriter.delimitedSize(statusSize) + (bodyBytes == 0 ? 0 : ProtoWriter.delimitedSize(bodyBytes))
        return ProtoWriter.varintFieldSize(UInt64(callID)) + ProtoWriter.delimitedSize(responseSize)
    }

    /// Appends `Frame { call_id, request { method, timeout_ms, metadata, message } }`.
    /// - Parameters:
    ///   - callID: the call's id.
    ///   - method: the method path, `/pushwire.v1.<Service>/<Method>`.
    ///   - timeoutMS: the deadline sent to the server; 0 for none.
    ///   - metadata: request metadata, e.g. `("authorization", "Bearer …")`.
    ///   - message: the method's request message, protobuf-encoded.
    ///   - buffer: the output buffer; the frame is appended after what is there.
    public static func appendRequestFrame(
        callID: UInt32, method: String, timeoutMS: UInt32,
        metadata: [(key: String, value: String)], message: UnsafeRawBufferPointer,
        to buffer: inout [UInt8]
    ) {
        var requestSize = stringFieldSize(method.utf8.count) + ProtoWriter.varintFieldSize(UInt64(timeoutMS))
        for entry in metadata {
            requestSize += ProtoWriter.delimitedSize(metadataSize(entry))
        }
        if message.count > 0 { requestSize += ProtoWriter.delimitedSize(message.count) }
        let frameSize = ProtoWriter.varintFieldSize(UInt64(callID)) + ProtoWriter.delimitedSize(requestSize)

        buffer.reserveCapacity(buffer.count + 4 + frameSize)
        ProtoWriter.appendLengthPrefix(frameSize, to: &buffer)
        ProtoWriter.appendVarintField(1, UInt64(callID), to: &buffer)  // Frame.call_id
        ProtoWriter.appendTag(2, ProtoWriter.lengthDelimited, to: &buffer)  // Frame.request
        ProtoWriter.appendVarint(UInt64(requestSize), to: &buffer)
        appendStringField(1, method, to: &buffer)  // Request.method
        ProtoWriter.appendVarintField(2, UInt64(timeoutMS), to: &buffer)  // Request.timeout_ms
        for entry in metadata {
            ProtoWriter.appendTag(3, ProtoWriter.lengthDelimited, to: &buffer)  // Request.metadata
            ProtoWriter.appendVarint(UInt64(metadataSize(entry)), to: &buffer)
            appendStringField(1, entry.key, to: &buffer)
            appendStringField(2, entry.value, to: &buffer)
        }
        if message.count > 0 {
            ProtoWriter.appendTag(4, ProtoWriter.lengthDelimited, to: &buffer)  // Request.message
            ProtoWriter.appendVarint(UInt64(message.count), to: &buffer)
            buffer.append(contentsOf: message)
        }
    }

    /// The protobuf encoding of a `Request` message (not a frame), for
    /// `appendRequestFrame(callID:request:to:)`: a load generator builds it once per scenario, with
    /// the generated wrapper, and then only wraps it in an envelope per call.
    public static func requestMessage(
        method: String, timeoutMS: UInt32 = 0, metadata: [(key: String, value: String)] = [], message: [UInt8]
    ) -> [UInt8] {
        Request(
            method: method, timeoutMS: timeoutMS, metadata: metadata.map { Metadata(key: $0.key, value: $0.value) },
            message: message
        ).encode()
    }

    /// Appends `Frame { call_id, request }` around prebuilt `Request` bytes (see `requestMessage`):
    /// a 5–11 byte envelope and a copy.
    @inlinable
    public static func appendRequestFrame(callID: UInt32, request: [UInt8], to buffer: inout [UInt8]) {
        let frameSize = ProtoWriter.varintFieldSize(UInt64(callID)) + ProtoWriter.delimitedSize(request.count)
        ProtoWriter.appendLengthPrefix(frameSize, to: &buffer)
        ProtoWriter.appendVarintField(1, UInt64(callID), to: &buffer)  // Frame.call_id
        buffer.append(0x12)  // Frame.request (2), length-delimited
        ProtoWriter.appendVarint(UInt64(request.count), to: &buffer)
        buffer.append(contentsOf: request)
    }

    /// Appends `Frame { call_id, cancel {} }`.
    @inlinable
    public static func appendCancelFrame(callID: UInt32, to buffer: inout [UInt8]) {
        ProtoWriter.appendLengthPrefix(ProtoWriter.varintFieldSize(UInt64(callID)) + 2, to: &buffer)
        ProtoWriter.appendVarintField(1, UInt64(callID), to: &buffer)  // Frame.call_id
        buffer.append(0x22)  // Frame.cancel (4), length-delimited
        buffer.append(0)  // Cancel has no fields
    }

    /// Appends `Frame { ping { payload } }` (call id 0).
    @inlinable
    public static func appendPingFrame(payload: UInt64, to buffer: inout [UInt8]) {
        appendPingOrPong(field: 5, payload: payload, to: &buffer)
    }

    /// Appends `Frame { pong { payload } }` (call id 0), the answer to a ping with `payload`.
    @inlinable
    public static func appendPongFrame(payload: UInt64, to buffer: inout [UInt8]) {
        appendPingOrPong(field: 6, payload: payload, to: &buffer)
    }

    /// Ping (5) and Pong (6) have the same shape: one `uint64 payload = 1`.
    @inlinable @inline(__always)
    static func appendPingOrPong(field: UInt32, payload: UInt64, to buffer: inout [UInt8]) {
        let inner = ProtoWriter.varintFieldSize(payload)
        ProtoWriter.appendLengthPrefix(ProtoWriter.delimitedSize(inner), to: &buffer)
        ProtoWriter.appendTag(field, ProtoWriter.lengthDelimited, to: &buffer)
        ProtoWriter.appendVarint(UInt64(inner), to: &buffer)
        ProtoWriter.appendVarintField(1, payload, to: &buffer)  // Ping/Pong.payload
    }

    /// A proto3 string field's size: absent when empty.
    @inline(__always)
    static func stringFieldSize(_ count: Int) -> Int {
        count == 0 ? 0 : ProtoWriter.delimitedSize(count)
    }

    /// Appends a proto3 string field unless it is empty.
    @inline(__always)
    static func appendStringField(_ field: UInt32, _ text: String, to buffer: inout [UInt8]) {
        if !text.isEmpty { ProtoWriter.appendBytes(field, text.utf8, to: &buffer) }
    }

    private static func metadataSize(_ entry: (key: String, value: String)) -> Int {
        stringFieldSize(entry.key.utf8.count) + stringFieldSize(entry.value.utf8.count)
    }
}
