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
    case unexpected

    /// Reduces a decoded frame (from `FrameDecoder`).
    init(_ frame: Frame) {
        switch frame.kind {
        case .response(let response):
            if let status = response.status {
                self = .response(callID: frame.callID, code: StatusCode(wireValue: status.code),
                                 message: status.message, body: response.message)
            } else {
                self = .streamItem(callID: frame.callID)
            }
        case .ping(let ping):
            self = .ping(ping.payload)
        case .pong(let pong):
            self = .pong(pong.payload)
        case .goAway(let goAway):
            self = .goAway(lastCallID: goAway.lastCallID, code: StatusCode(wireValue: goAway.status?.code ?? 0),
                           message: goAway.status?.message ?? "")
        case .settings(let s):
            self = .settings(ServerSettings(
                maxFrameSize: Int(s.maxFrameSize), maxConcurrentCalls: Int(s.maxConcurrentCalls),
                serverName: s.serverName, serverVersion: s.serverVersion, protocolVersion: s.protocolVersion,
                idleTimeout: s.idleTimeoutMS == 0 ? nil : .milliseconds(Int64(s.idleTimeoutMS))))
        case .request, .cancel, nil:
            self = .unexpected
        }
    }
}
