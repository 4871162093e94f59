import PushwireWire

/// The limits a server announced in its `Settings` frame right after the preface.
public struct ServerSettings: Sendable, Equatable {
    /// The largest frame payload the server accepts, in bytes.
    public var maxFrameSize: Int
    /// How many calls may be in flight on one connection; 0 means the server announced no limit.
    public var maxConcurrentCalls: Int
    /// The server's name, e.g. `pushwired`.
    public var serverName: String
    /// The server's version, e.g. `0.1.0`.
    public var serverVersion: String
    /// The protocol version the server speaks.
    public var protocolVersion: UInt32
    /// Idle connections are closed after this long without a frame; `nil` means never.
    public var idleTimeout: Duration?

    /// Creates settings; the defaults are protocol v1's.
    public init(
        maxFrameSize: Int = WireProtocol.defaultMaxFrameSize, maxConcurrentCalls: Int = WireProtocol.defaultMaxConcurrentCalls,
        serverName: String = "", serverVersion: String = "", protocolVersion: UInt32 = 1,
        idleTimeout: Duration? = nil
    ) {
        self.maxFrameSize = maxFrameSize
        self.maxConcurrentCalls = maxConcurrentCalls
        self.serverName = serverName
        self.serverVersion = serverVersion
        self.protocolVersion = protocolVersion
        self.idleTimeout = idleTimeout
    }
}
