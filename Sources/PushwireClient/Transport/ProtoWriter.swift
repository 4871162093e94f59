/// Appends protobuf wire-format pieces to a byte buffer: just what the client's outbound frames
/// and the JSON bridge need, with sizes computed up front so nested messages need no temporary
/// buffers on the hot path.
enum ProtoWriter {
    /// Wire type 0: varint.
    static let varint: UInt32 = 0
    /// Wire type 1: 64-bit.
    static let fixed64: UInt32 = 1
    /// Wire type 2: length-delimited.
    static let lengthDelimited: UInt32 = 2
    /// Wire type 5: 32-bit.
    static let fixed32: UInt32 = 5

    /// How many bytes `value` takes as a varint.
    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    /// Appends `value` as a varint.
    @inline(__always)
    static func appendVarint(_ value: UInt64, to buffer: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            buffer.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        buffer.append(UInt8(v))
    }

    /// Appends a field key.
    @inline(__always)
    static func appendTag(_ field: UInt32, _ wireType: UInt32, to buffer: inout [UInt8]) {
        appendVarint(UInt64(field << 3 | wireType), to: &buffer)
    }

    /// Size of a length-delimited field (key, length, payload) with a one-byte key.
    @inline(__always)
    static func delimitedSize(_ payload: Int) -> Int {
        1 + varintSize(UInt64(payload)) + payload
    }

    /// Appends a length-delimited field with bytes.
    static func appendBytes(_ field: UInt32, _ bytes: some Collection<UInt8>, to buffer: inout [UInt8]) {
        appendTag(field, lengthDelimited, to: &buffer)
        appendVarint(UInt64(bytes.count), to: &buffer)
        buffer.append(contentsOf: bytes)
    }

    /// Appends a 4-byte big-endian length prefix.
    @inline(__always)
    static func appendLengthPrefix(_ length: Int, to buffer: inout [UInt8]) {
        let n = UInt32(truncatingIfNeeded: length)
        buffer.append(UInt8(truncatingIfNeeded: n >> 24))
        buffer.append(UInt8(truncatingIfNeeded: n >> 16))
        buffer.append(UInt8(truncatingIfNeeded: n >> 8))
        buffer.append(UInt8(truncatingIfNeeded: n))
    }
}
