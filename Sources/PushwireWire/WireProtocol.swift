/// The constants of Pushwire wire protocol v1 (docs/PROTOCOL.md), defined once for the server,
/// the clients, the tests and the documentation checks.
public enum WireProtocol {
    /// The 8 ASCII bytes `PWIRE/1\n` each side sends first: the client to open, the server to answer.
    public static let preface: [UInt8] = Array("PWIRE/1\n".utf8)
    /// The protocol version this code speaks; also sent in `Settings.protocol_version`.
    public static let version: UInt32 = 1
    /// The largest frame payload (the N of the length prefix) accepted unless configured otherwise:
    /// 4 MiB.
    public static let defaultMaxFrameSize: Int = 4 * 1024 * 1024
    /// How many calls may be in flight on one connection unless configured otherwise.
    public static let defaultMaxConcurrentCalls: Int = 1024
    /// How long a server waits for the client's 8 preface bytes before closing the connection.
    public static let defaultPrefaceTimeoutMS: UInt32 = 10_000
    /// How long a connection with no call in flight may go without receiving a frame before the
    /// server closes it (announced in `Settings.idle_timeout_ms`): 5 minutes.
    public static let defaultIdleTimeoutMS: UInt32 = 300_000
    /// The size of the big-endian length that precedes every frame.
    public static let lengthPrefixSize = 4
}
