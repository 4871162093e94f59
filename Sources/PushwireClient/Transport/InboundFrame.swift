import CProtobufC
import PushwireProtoC
import PushwireWire

/// A frame received from the server, reduced to what the client acts on.
enum InboundFrame: Sendable {
    /// The final response of a call: its status and, when OK, the response message.
    case response(callID: UInt32, code: StatusCode, message: String, body: [UInt8])
    /// A streamed item without a status (reserved in v1); ignored by unary calls.
    case streamItem(callID: UInt32)
    /// The server asks for a Pong with this payload.
    case ping(UInt64)
    /// The answer to one of our pings.
    case pong(UInt64)
    /// No calls above `lastCallID` will be processed.
    case goAway(lastCallID: UInt32, code: StatusCode, message: String)
    /// The server's limits.
    case settings(ServerSettings)
    /// A kind a server never sends to a client (request, cancel).
    case unexpected(String)

    /// Why a frame could not be read.
    struct DecodingError: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// Decodes one frame payload (without its length prefix) with protobuf-c, which validates
    /// wire types and UTF-8; the unpacked C message is freed before returning.
    static func decode(_ payload: UnsafeRawBufferPointer) throws(DecodingError) -> InboundFrame {
        // An empty payload is a Frame with no kind: a protocol error either way.
        guard payload.count > 0, let base = payload.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let frame = pushwire__v1__frame__unpack(nil, payload.count, base)
        else {
            throw DecodingError(description: "a frame that is not a valid pushwire.v1.Frame")
        }
        defer { pushwire__v1__frame__free_unpacked(frame, nil) }
        let f = frame.pointee
        switch f.kind_case {
        case PUSHWIRE__V1__FRAME__KIND_RESPONSE:
            guard let response = f.response else { return .unexpected("response without body") }
            guard let status = response.pointee.status else { return .streamItem(callID: f.call_id) }
            let body = bytes(response.pointee.message)
            return .response(
                callID: f.call_id, code: StatusCode(wireValue: status.pointee.code),
                message: string(status.pointee.message), body: body)
        case PUSHWIRE__V1__FRAME__KIND_PING:
            return .ping(f.ping?.pointee.payload ?? 0)
        case PUSHWIRE__V1__FRAME__KIND_PONG:
            return .pong(f.pong?.pointee.payload ?? 0)
        case PUSHWIRE__V1__FRAME__KIND_GO_AWAY:
            let goAway = f.go_away?.pointee
            let status = goAway?.status?.pointee
            return .goAway(
                lastCallID: goAway?.last_call_id ?? 0, code: StatusCode(wireValue: status?.code ?? 0),
                message: string(status?.message))
        case PUSHWIRE__V1__FRAME__KIND_SETTINGS:
            guard let s = f.settings?.pointee else { return .settings(ServerSettings()) }
            return .settings(ServerSettings(
                maxFrameSize: Int(s.max_frame_size), maxConcurrentCalls: Int(s.max_concurrent_calls),
                serverName: string(s.server_name), serverVersion: string(s.server_version),
                protocolVersion: s.protocol_version,
                idleTimeout: s.idle_timeout_ms == 0 ? nil : .milliseconds(Int64(s.idle_timeout_ms))))
        case PUSHWIRE__V1__FRAME__KIND__NOT_SET:
            throw DecodingError(description: "a frame with no kind")
        default:
            return .unexpected("frame kind \(f.kind_case.rawValue)")
        }
    }

    private static func bytes(_ data: ProtobufCBinaryData) -> [UInt8] {
        guard data.len > 0, let p = data.data else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: data.len))
    }

    private static func string(_ cString: UnsafeMutablePointer<CChar>?) -> String {
        guard let cString else { return "" }
        return String(cString: cString)
    }
}
