/// Scanning of frames in place, for the load generator and its loopback server: a response is
/// read for the three numbers the harness needs (call id, status code, pong payload) without
/// unpacking into the generated wrappers or allocating. `HotFramesTests` checks it on frames packed
/// by protobuf-c.
extension HotFrames {
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

    /// Scans one frame payload (without its length prefix); `nil` when it is not valid protobuf, or
    /// when it repeats a member of the frame's oneof or a status (protobuf-c merges a repeated
    /// message into the one before; no Pushwire peer sends one, so the scan declines instead).
    /// Of two different members of the oneof the last counts, as protobuf-c reads it.
    public static func scan(_ frame: UnsafeRawBufferPointer) -> Event? {
        var reader = Reader(frame)
        var callID: UInt32 = 0
        var event: Event = .other
        var kinds: UInt16 = 0
        while !reader.atEnd {
            guard let (field, wireType) = reader.tag() else { return nil }
            if (2...8).contains(field), wireType == 2 {
                guard kinds & (1 << field) == 0 else { return nil }
                kinds |= 1 << field
            }
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
                        guard code == nil, let status = sub.submessage() else { return nil }
                        code = scanStatusCode(status)
                        if code == nil { return nil }
                    } else if !sub.skip(wireType: w) { return nil }
                }
                event = code.map { .response(callID: 0, code: $0) } ?? .streamItem(callID: 0)
            case (4, 2):  // cancel: nothing to read, but it replaces any kind before it
                guard reader.submessage() != nil else { return nil }
                event = .other
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
                var code: UInt32?
                while !sub.atEnd {
                    guard let (f, w) = sub.tag() else { return nil }
                    if f == 1, w == 0 {
                        guard let value = sub.varint() else { return nil }
                        last = UInt32(truncatingIfNeeded: value)
                    } else if f == 2, w == 2 {
                        guard code == nil, let status = sub.submessage(), let c = scanStatusCode(status) else { return nil }
                        code = c
                    } else if !sub.skip(wireType: w) { return nil }
                }
                event = .goAway(lastCallID: last, code: code ?? 0)
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

    /// The payload of a frame that is a Ping and nothing else — `Frame { [call_id] ping { [payload] } }`
    /// with its fields in number order, as every encoder writes them — for the server to answer
    /// without decoding it (a Ping is a whole call's worth of decoding for one number: the Ping
    /// rows, docs/BENCHMARKS.md, TLS). Nil for any other frame, an unknown or repeated field
    /// included: those take the regular decoder, which answers them as before.
    @inlinable
    public static func scanPing(_ frame: UnsafeRawBufferPointer) -> UInt64? {
        var reader = Reader(frame)
        guard var key = reader.tag() else { return nil }
        if key.field == 1, key.wireType == 0 {  // call_id: a ping belongs to no call, ignored
            guard reader.varint() != nil, let next = reader.tag() else { return nil }
            key = next
        }
        guard key.field == 5, key.wireType == 2, var ping = reader.submessage(), reader.atEnd else { return nil }
        if ping.atEnd { return 0 }
        guard let inner = ping.tag(), inner.field == 1, inner.wireType == 0, let payload = ping.varint(), ping.atEnd else {
            return nil
        }
        return payload
    }

    /// A bounds-checked cursor over protobuf bytes. Public so that the runtime's raw fast paths
    /// (and the handlers behind them) read requests in place with the same primitives as the
    /// harness; `@inlinable` because they run once per field per call.
    public struct Reader {
        /// The bytes read.
        public let base: UnsafeRawBufferPointer
        /// The next byte to read.
        public var offset: Int
        /// One past the last byte this reader may read.
        public let end: Int

        /// A reader over all of `base`.
        @inlinable
        public init(_ base: UnsafeRawBufferPointer) {
            self.base = base
            self.offset = 0
            self.end = base.count
        }

        @usableFromInline
        init(base: UnsafeRawBufferPointer, offset: Int, end: Int) {
            self.base = base
            self.offset = offset
            self.end = end
        }

        /// Whether every byte was read.
        @inlinable
        public var atEnd: Bool { offset >= end }

        /// The bytes `[offset, end)` as a buffer.
        @inlinable
        public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: base[offset..<end]) }

        /// Reads a varint; nil when it is truncated or longer than 10 bytes.
        @inlinable
        public mutating func varint() -> UInt64? {
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

        /// Reads a varint of at most 5 bytes, as protobuf-c reads field keys and lengths (and the
        /// wire validator checks them); nil when it is truncated or longer.
        @inlinable
        public mutating func shortVarint() -> UInt64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while offset < end, shift < 35 {
                let byte = base[offset]
                offset += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
            return nil
        }

        /// Reads a field key; nil when truncated, longer than 5 bytes, above 32 bits or field
        /// number 0 — what the wire validator rejects.
        @inlinable
        public mutating func tag() -> (field: UInt64, wireType: UInt8)? {
            guard let key = shortVarint(), key >> 3 != 0, key <= UInt64(UInt32.max) else { return nil }
            return (key >> 3, UInt8(key & 7))
        }

        /// The next length-delimited field as a reader over its bytes; nil when the length is
        /// truncated, longer than 5 bytes or past the end.
        @inlinable
        public mutating func submessage() -> Reader? {
            guard let length = shortVarint(), length <= UInt64(end - offset) else { return nil }
            let sub = Reader(base: base, offset: offset, end: offset + Int(length))
            offset += Int(length)
            return sub
        }

        /// Skips a field's value of `wireType`; false when it is truncated or of an unknown type.
        @inlinable
        public mutating func skip(wireType: UInt8) -> Bool {
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
