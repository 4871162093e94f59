/// Fixed limits that keep decoding of untrusted bytes bounded in depth and memory.
public enum WireLimits {
    /// The deepest nesting of messages `init(decoding:)` accepts; the message being decoded is at
    /// depth 1. protobuf-c has no limit of its own and recurses once per level, so bytes nesting
    /// deeper are rejected (`.tooDeep`) before protobuf-c sees them.
    public static let maxNestingDepth = 32

    /// The most memory protobuf-c may allocate while unpacking one message. Small encodings can
    /// unpack into much larger C structs (2 bytes of input can become a 200-byte submessage), so
    /// decoding fails with `.outOfMemory` beyond this rather than letting a peer exhaust memory.
    public static let maxUnpackedBytes = 256 * 1024 * 1024

    /// The most bytes of a caller's value that an error message quotes (`RPCError.echo`).
    public static let maxEchoedBytes = 128
}
