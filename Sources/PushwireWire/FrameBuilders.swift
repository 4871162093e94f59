/// Frames built the way docs/PROTOCOL.md says each kind is sent, so the server, the clients and the
/// tests never assemble them field by field.
extension Frame {
    /// A `Request` starting call `callID`.
    /// - Parameters:
    ///   - callID: the call's id: non-zero, unique among the connection's calls in flight.
    ///   - method: the method path, e.g. `/pushwire.v1.Devices/RegisterDevice`.
    ///   - timeoutMS: the deadline in milliseconds from when the server reads the request; 0 for none.
    ///   - metadata: key/value pairs such as `authorization: Bearer <token>`.
    ///   - message: the method's request message, encoded.
    public static func request(
        callID: UInt32, method: String, timeoutMS: UInt32 = 0, metadata: [Metadata] = [], message: [UInt8]
    ) -> Frame {
        var request = Request()
        request.method = method
        request.timeoutMS = timeoutMS
        request.metadata = metadata
        request.message = message
        return Frame(callID: callID, kind: .request(request))
    }

    /// The `Response` that ends call `callID`: it always carries a `Status`, even for OK, because a
    /// response without one is a streamed item (docs/PROTOCOL.md).
    /// - Parameters:
    ///   - callID: the call being answered.
    ///   - status: the outcome.
    ///   - message: what went wrong, for a person; empty for OK.
    ///   - body: the method's response message, encoded; empty unless `status` is OK.
    public static func response(callID: UInt32, status: StatusCode, message: String = "", body: [UInt8] = []) -> Frame {
        var response = Response()
        response.status = Status(status, message: message)
        response.message = body
        return Frame(callID: callID, kind: .response(response))
    }

    /// A `Cancel` abandoning call `callID`.
    public static func cancel(callID: UInt32) -> Frame {
        Frame(callID: callID, kind: .cancel(Cancel()))
    }

    /// A `Ping` (call id 0) with an opaque payload the peer echoes.
    public static func ping(_ payload: UInt64) -> Frame {
        var ping = Ping()
        ping.payload = payload
        return Frame(callID: 0, kind: .ping(ping))
    }

    /// The `Pong` (call id 0) answering a ping with `payload`.
    public static func pong(_ payload: UInt64) -> Frame {
        var pong = Pong()
        pong.payload = payload
        return Frame(callID: 0, kind: .pong(pong))
    }

    /// A `GoAway` (call id 0): no call above `lastCallID` will be processed.
    /// - Parameters:
    ///   - lastCallID: the highest call id accepted.
    ///   - status: OK for a graceful shutdown, otherwise the protocol violation that ends the connection.
    ///   - message: for a person; empty for OK.
    public static func goAway(lastCallID: UInt32, status: StatusCode, message: String) -> Frame {
        var goAway = GoAway()
        goAway.lastCallID = lastCallID
        goAway.status = Status(status, message: message)
        return Frame(callID: 0, kind: .goAway(goAway))
    }

    /// The `Settings` frame (call id 0) a server sends right after its preface.
    public static func settings(_ settings: Settings) -> Frame {
        Frame(callID: 0, kind: .settings(settings))
    }
}

extension Status {
    /// A status with a code and a message for a person.
    public init(_ code: StatusCode, message: String = "") {
        self.init()
        self.code = code.rawValue
        self.message = message
    }

    /// The code as a `StatusCode`; wire values above 16 read as `.unknown`.
    public var statusCode: StatusCode { StatusCode(wireValue: code) }
}

extension Settings {
    /// What a server announces after its preface: its limits, its name and version, and protocol
    /// version 1.
    /// - Parameters:
    ///   - name: the server's name, e.g. `pushwired`.
    ///   - version: the server's version, e.g. `0.1.0`.
    ///   - maxFrameSize: the largest frame payload it accepts.
    ///   - maxConcurrentCalls: calls a connection may have in flight.
    ///   - idleTimeoutMS: how long a connection may stay idle; 0 for ever.
    public static func server(
        name: String,
        version: String,
        maxFrameSize: Int = WireProtocol.defaultMaxFrameSize,
        maxConcurrentCalls: Int = WireProtocol.defaultMaxConcurrentCalls,
        idleTimeoutMS: UInt32 = WireProtocol.defaultIdleTimeoutMS
    ) -> Settings {
        Settings(
            maxFrameSize: UInt32(clamping: maxFrameSize),
            maxConcurrentCalls: UInt32(clamping: maxConcurrentCalls),
            serverName: name,
            serverVersion: version,
            protocolVersion: WireProtocol.version,
            idleTimeoutMS: idleTimeoutMS
        )
    }
}
