import PushwireWire

/// The few frames a load generator writes and reads, encoded and scanned by hand.
///
/// Why not the generated `Frame` wrapper: a load generator must cost far less per call than the
/// server it measures. Here a request frame is its prebuilt `Request` bytes behind a 5–11 byte
/// envelope, and a response is scanned in place for the three numbers the harness needs (call id,
/// status code, pong payload) without unpacking or allocating. The encoding is plain protobuf of
/// `Protos/pushwire/v1/rpc.proto`; the tests check it against protobuf-c.
public enum LoadTestFrames {
    // Field numbers and wire types of rpc.proto, (field << 3) | wireType.
    static let frameCallIDTag: UInt8 = 0x08  // Frame.call_id = 1, varint
    static let frameRequestTag: UInt8 = 0x12  // Frame.request = 2, length-delimited
    static let framePingTag: UInt8 = 0x2A  // Frame.ping = 5, length-delimited

    /// The protobuf encoding of a `Request` message (not a frame): what `appendRequestFrame`
    /// sends for every call of a scenario.
    /// - Parameters:
    ///   - method: the method path, `/pushwire.v1.<Service>/<Method>`.
    ///   - timeoutMS: the deadline sent to the server; 0 for the server's default.
    ///   - metadata: request metadata, e.g. `("authorization", "Bearer …")`.
    ///   - message: the method's request message, protobuf-encoded.
    public static func requestMessage(
        method: String, timeoutMS: UInt32 = 0, metadata: [(key: String, value: String)] = [], message: [UInt8]
    ) -> [UInt8] {
        // Built once per scenario, so the generated wrapper's encoder is the one source of truth.
        Request(
            method: method, timeoutMS: timeoutMS, metadata: metadata.map { Metadata(key: $0.key, value: $0.value) },
            message: message
        ).encode()
    }

    /// Appends a length-prefixed `Frame { call_id, request }` carrying prebuilt `Request` bytes.
    @inline(__always)
    public static func appendRequestFrame(callID: UInt32, request: [UInt8], to out: inout [UInt8]) {
        let body = 1 + varintSize(UInt64(callID)) + 1 + varintSize(UInt64(request.count)) + request.count
        appendBigEndian32(UInt32(body), to: &out)
        out.append(frameCallIDTag)
        appendVarint(UInt64(callID), to: &out)
        out.append(frameRequestTag)
        appendVarint(UInt64(request.count), to: &out)
        out.append(contentsOf: request)
    }

    /// Appends a length-prefixed `Frame { ping { payload } }` (call id 0).
    @inline(__always)
    public static func appendPingFrame(payload: UInt64, to out: inout [UInt8]) {
        let ping = 1 + varintSize(payload)
        appendBigEndian32(UInt32(2 + ping), to: &out)
        out.append(framePingTag)
        out.append(UInt8(ping))
        out.append(0x08)
        appendVarint(payload, to: &out)
    }

    /// Appends a length-prefixed `Frame { call_id, response { status { code }, message } }`.
    public static func appendResponseFrame(callID: UInt32, code: UInt32, message: [UInt8], to out: inout [UInt8]) {
        let status = code == 0 ? 0 : 1 + varintSize(UInt64(code))
        var response = 2 + status
        if !message.isEmpty { response += 1 + varintSize(UInt64(message.count)) + message.count }
        let body = (callID == 0 ? 0 : 1 + varintSize(UInt64(callID))) + 1 + varintSize(UInt64(response)) + response
        appendBigEndian32(UInt32(body), to: &out)
        if callID != 0 {
            out.append(frameCallIDTag)
            appendVarint(UInt64(callID), to: &out)
        }
        out.append(0x1A)  // Frame.response = 3
        appendVarint(UInt64(response), to: &out)
        out.append(0x0A)  // Response.status = 1
        out.append(UInt8(status))
        if code != 0 {
            out.append(0x08)  // Status.code = 1
            appendVarint(UInt64(code), to: &out)
        }
        if !message.isEmpty {
            out.append(0x12)  // Response.message = 2
            appendVarint(UInt64(message.count), to: &out)
            out.append(contentsOf: message)
        }
    }

    /// Appends a length-prefixed `Frame { pong { payload } }`.
    public static func appendPongFrame(payload: UInt64, to out: inout [UInt8]) {
        let pong = 1 + varintSize(payload)
        appendBigEndian32(UInt32(2 + pong), to: &out)
        out.append(0x32)  // Frame.pong = 6
        out.append(UInt8(pong))
        out.append(0x08)
        appendVarint(payload, to: &out)
    }

    /// Appends a length-prefixed `Frame { settings { max_frame_size, max_concurrent_calls, … } }`.
    public static func appendSettingsFrame(maxFrameSize: UInt32, maxConcurrentCalls: UInt32, serverName: String, to out: inout [UInt8]) {
        var settings: [UInt8] = [0x08]
        appendVarint(UInt64(maxFrameSize), to: &settings)
        settings.append(0x10)
        appendVarint(UInt64(maxConcurrentCalls), to: &settings)
        appendLengthDelimited(field: 3, Array(serverName.utf8), to: &settings)
        settings.append(0x28)  // protocol_version = 5
        settings.append(1)
        var frame: [UInt8] = []
        appendLengthDelimited(field: 8, settings, to: &frame)
        appendBigEndian32(UInt32(frame.count), to: &out)
        out.append(contentsOf: frame)
    }

    /// What the harness needs to know about one frame from the server.
    public enum Event: Equatable, Sendable {
        /// The end of call `callID`, with its status code (0 for OK).
        case response(callID: UInt32, code: UInt32)
        /// A streamed item of call `callID` (a response without status); not the end of the call.
        case streamItem(callID: UInt32)
        /// The answer to the ping that carried `payload`.
        case pong(payload: UInt64)
        /// The server is going away; calls above `lastCallID` will not be answered.
        case goAway(lastCallID: UInt32, code: UInt32)
        /// The server's settings: its limit on calls in flight per connection (0 = unstated).
        case settings(maxConcurrentCalls: UInt32)
        /// A request for call `callID`; `method` is the byte range of its method path in the scanned
        /// frame (what the harness's loopback server needs to answer without allocating).
        case request(callID: UInt32, method: Range<Int>)
        /// A ping carrying `payload`.
        case ping(payload: UInt64)
        /// Any other frame (a cancel); ignored by the harness.
        case other
    }

    /// Scans one frame payload (without its length prefix); `nil` when it is not valid protobuf.
    public static func scan(_ frame: UnsafeRawBufferPointer) -> Event? {
        var reader = Reader(frame)
        var callID: UInt32 = 0
        var event: Event = .other
        while !reader.atEnd {
            guard let (field, wireType) = reader.tag() else { return nil }
            switch (field, wireType) {
            case (1, 0):
                guard let value = reader.varint() else { return nil }
                callID = UInt32(truncatingIfNeeded: value)
            case (3, 2):  // response
                guard var sub = reader.submessage() else { return nil }
                var code: UInt32?
                while !sub.atEnd {
                    guard let (f, w) = sub.tag() else { return nil }
                    if f == 1, w == 2 {
                        guard let status = sub.submessage() else { return nil }
                        code = scanStatusCode(status)
                        if code == nil { return nil }
                    } else if !sub.skip(wireType: w) { return nil }
                }
                event = code.map { .response(callID: 0, code: $0) } ?? .streamItem(callID: 0)
            case (2, 2):  // request
                guard var sub = reader.submessage() else { return nil }
                var method = 0..<0
                while !sub.atEnd {
                    guard let (f, w) = sub.tag() else { return nil }
                    if f == 1, w == 2 {
                        guard let path = sub.submessage() else { return nil }
                        method = path.offset..<path.end
                    } else if !sub.skip(wireType: w) { return nil }
                }
                event = .request(callID: 0, method: method)
            case (5, 2), (6, 2):  // ping, pong
                guard var sub = reader.submessage() else { return nil }
                var payload: UInt64 = 0
                while !sub.atEnd {
                    guard let (f, w) = sub.tag() else { return nil }
                    if f == 1, w == 0 {
                        guard let value = sub.varint() else { return nil }
                        payload = value
                    } else if !sub.skip(wireType: w) { return nil }
                }
                event = field == 5 ? .ping(payload: payload) : .pong(payload: payload)
            case (7, 2):  // go_away
                guard var sub = reader.submessage() else { return nil }
                var last: UInt32 = 0
                var code: UInt32 = 0
                while !sub.atEnd {
                    guard let (f, w) = sub.tag() else { return nil }
                    if f == 1, w == 0 {
                        guard let value = sub.varint() else { return nil }
                        last = UInt32(truncatingIfNeeded: value)
                    } else if f == 2, w == 2 {
                        guard let status = sub.submessage(), let c = scanStatusCode(status) else { return nil }
                        code = c
                    } else if !sub.skip(wireType: w) { return nil }
                }
                event = .goAway(lastCallID: last, code: code)
            case (8, 2):  // settings
                guard var sub = reader.submessage() else { return nil }
                var maxCalls: UInt32 = 0
                while !sub.atEnd {
                    guard let (f, w) = sub.tag() else { return nil }
                    if f == 2, w == 0 {
                        guard let value = sub.varint() else { return nil }
                        maxCalls = UInt32(truncatingIfNeeded: value)
                    } else if !sub.skip(wireType: w) { return nil }
                }
                event = .settings(maxConcurrentCalls: maxCalls)
            default:
                if !reader.skip(wireType: wireType) { return nil }
            }
        }
        switch event {
        case .response(_, let code): return .response(callID: callID, code: code)
        case .streamItem: return .streamItem(callID: callID)
        case .request(_, let method): return .request(callID: callID, method: method)
        default: return event
        }
    }

    private static func scanStatusCode(_ status: Reader) -> UInt32? {
        var status = status
        var code: UInt32 = 0
        while !status.atEnd {
            guard let (f, w) = status.tag() else { return nil }
            if f == 1, w == 0 {
                guard let value = status.varint() else { return nil }
                code = UInt32(truncatingIfNeeded: value)
            } else if !status.skip(wireType: w) { return nil }
        }
        return code
    }

    // MARK: - Encoding helpers

    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        (64 - (value | 1).leadingZeroBitCount + 6) / 7
    }

    @inline(__always)
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    @inline(__always)
    static func appendBigEndian32(_ value: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }

    static func appendLengthDelimited(field: UInt8, _ bytes: [UInt8], to out: inout [UInt8]) {
        out.append(field << 3 | 2)
        appendVarint(UInt64(bytes.count), to: &out)
        out.append(contentsOf: bytes)
    }

    /// A bounds-checked cursor over protobuf bytes.
    struct Reader {
        let base: UnsafeRawBufferPointer
        var offset: Int
        let end: Int

        init(_ base: UnsafeRawBufferPointer) {
            self.base = base
            self.offset = 0
            self.end = base.count
        }

        private init(base: UnsafeRawBufferPointer, offset: Int, end: Int) {
            self.base = base
            self.offset = offset
            self.end = end
        }

        var atEnd: Bool { offset >= end }

        mutating func varint() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while offset < end, shift < 64 {
                let byte = base[offset]
                offset += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
            return nil
        }

        mutating func tag() -> (field: UInt64, wireType: UInt8)? {
            guard let key = varint(), key >> 3 != 0 else { return nil }
            return (key >> 3, UInt8(key & 7))
        }

        /// The next length-delimited field as a reader over its bytes.
        mutating func submessage() -> Reader? {
            guard let length = varint(), length <= UInt64(end - offset) else { return nil }
            let sub = Reader(base: base, offset: offset, end: offset + Int(length))
            offset += Int(length)
            return sub
        }

        mutating func skip(wireType: UInt8) -> Bool {
            switch wireType {
            case 0: return varint() != nil
            case 1: guard end - offset >= 8 else { return false }; offset += 8; return true
            case 2: return submessage() != nil
            case 5: guard end - offset >= 4 else { return false }; offset += 4; return true
            default: return false
            }
        }
    }
}
