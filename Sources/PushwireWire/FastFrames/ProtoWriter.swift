/// Protobuf wire-format primitives appended straight to a byte buffer: varints, field keys,
/// length-delimited fields and the frame's 4-byte length prefix.
///
/// The one home of hand-written protobuf encoding: `HotFrames` builds the hot frames from these,
/// and the client's JSON bridge builds arbitrary messages from them. Sizes are computed up front by
/// the callers so nested messages need no temporary buffers. `@inlinable` because the server, the
/// client and the load generator call them per frame from other modules.
public enum ProtoWriter {
    /// Wire type 0: varint.
    public static let varint: UInt32 = 0
    /// Wire type 1: 64-bit.
    public static let fixed64: UInt32 = 1
    /// Wire type 2: length-delimited.
    public static let lengthDelimited: UInt32 = 2
    /// Wire type 5: 32-bit.
    public static let fixed32: UInt32 = 5

    /// How many bytes `value` takes as a varint (1 for 0).
    @inlinable @inline(__always)
    public static func varintSize(_ value: UInt64) -> Int {
        (64 - (value | 1).leadingZeroBitCount + 6) / 7
    }

    /// Appends `value` as a varint.
    @inlinable @inline(__always)
    public static func appendVarint(_ value: UInt64, to buffer: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            buffer.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        buffer.append(UInt8(rest))
    }

    /// Appends a field key: `field << 3 | wireType`, as a varint.
    @inlinable @inline(__always)
    public static func appendTag(_ field: UInt32, _ wireType: UInt32, to buffer: inout [UInt8]) {
        appendVarint(UInt64(field << 3 | wireType), to: &buffer)
    }

    /// The size of a length-delimited field with a one-byte key (fields 1–15): key, length, payload.
    @inlinable @inline(__always)
    public static func delimitedSize(_ payload: Int) -> Int {
        1 + varintSize(UInt64(payload)) + payload
    }

    /// The size of a varint field with a one-byte key, or 0 when `value` is 0 (proto3 leaves
    /// zero scalars out, as protobuf-c does).
    @inlinable @inline(__always)
    public static func varintFieldSize(_ value: UInt64) -> Int {
        value == 0 ? 0 : 1 + varintSize(value)
    }

    /// Appends a varint field unless `value` is 0 (proto3 leaves zero scalars out).
    @inlinable @inline(__always)
    public static func appendVarintField(_ field: UInt32, _ value: UInt64, to buffer: inout [UInt8]) {
        guard value != 0 else { return }
        appendTag(field, varint, to: &buffer)
        appendVarint(value, to: &buffer)
    }

    /// Appends a length-delimited field holding `bytes` (always, even when empty).
    @inlinable
    public static func appendBytes(_ field: UInt32, _ bytes: some Collection<UInt8>, to buffer: inout [UInt8]) {
        appendTag(field, lengthDelimited, to: &buffer)
        appendVarint(UInt64(bytes.count), to: &buffer)
        buffer.append(contentsOf: bytes)
    }

    /// Appends the 4-byte big-endian length prefix of a frame.
    @inlinable @inline(__always)
    public static func appendLengthPrefix(_ length: Int, to buffer: inout [UInt8]) {
        let n = UInt32(truncatingIfNeeded: length)
        buffer.append(UInt8(truncatingIfNeeded: n >> 24))
        buffer.append(UInt8(truncatingIfNeeded: n >> 16))
        buffer.append(UInt8(truncatingIfNeeded: n >> 8))
        buffer.append(UInt8(truncatingIfNeeded: n))
    }
}
