/// A minimal protobuf wire-format reader, enough to decode `descriptor.proto` messages.
///
/// The generator must not depend on PushwireWire or protobuf-c (they are built from its output),
/// so it reads the descriptor set itself.
struct ProtobufReader {
    /// Why the descriptor set could not be read.
    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
    }

    /// One field as read from the wire.
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case fixed32(UInt32)
        case bytes(ArraySlice<UInt8>)

        /// The integer value of a varint or fixed field.
        var integer: UInt64 {
            switch self {
            case .varint(let v), .fixed64(let v): return v
            case .fixed32(let v): return UInt64(v)
            case .bytes: return 0
            }
        }

        /// The payload of a length-delimited field.
        var payload: ArraySlice<UInt8> {
            if case .bytes(let b) = self { return b }
            return []
        }

        /// The payload as a UTF-8 string.
        var string: String { String(decoding: payload, as: UTF8.self) }
    }

    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    /// The next field, or nil at the end of the message.
    mutating func next() throws -> (number: Int, value: Value)? {
        guard index < bytes.endIndex else { return nil }
        let key = try readVarint()
        let number = Int(key >> 3)
        switch key & 7 {
        case 0: return (number, .varint(try readVarint()))
        case 1: return (number, .fixed64(try readFixed(8)))
        case 5: return (number, .fixed32(UInt32(try readFixed(4))))
        case 2:
            let length = try readVarint()
            guard length <= UInt64(bytes.endIndex - index) else { throw Error(description: "length past the end") }
            let start = index
            index += Int(length)
            return (number, .bytes(bytes[start..<index]))
        default:
            throw Error(description: "unsupported wire type \(key & 7)")
        }
    }

    /// Every field of the message, in order.
    static func fields(_ bytes: ArraySlice<UInt8>) throws -> [(number: Int, value: Value)] {
        var reader = ProtobufReader(bytes)
        var out: [(number: Int, value: Value)] = []
        while let field = try reader.next() { out.append(field) }
        return out
    }

    /// The integers of a repeated int32 field, packed or not.
    static func packedIntegers(_ value: Value) throws -> [Int] {
        switch value {
        case .bytes(let payload):
            var reader = ProtobufReader(payload)
            var out: [Int] = []
            while reader.index < reader.bytes.endIndex { out.append(Int(Int32(truncatingIfNeeded: try reader.readVarint()))) }
            return out
        default:
            return [Int(Int32(truncatingIfNeeded: value.integer))]
        }
    }

    private mutating func readVarint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.endIndex, shift < 64 {
            let byte = bytes[index]
            index += 1
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
        throw Error(description: "malformed varint")
    }

    private mutating func readFixed(_ count: Int) throws -> UInt64 {
        guard bytes.endIndex - index >= count else { throw Error(description: "truncated fixed field") }
        var result: UInt64 = 0
        for i in 0..<count { result |= UInt64(bytes[index + i]) << (8 * UInt64(i)) }
        index += count
        return result
    }
}
