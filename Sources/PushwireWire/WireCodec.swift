import CProtobufC

/// A generated message backed by a protoc-c C struct. The generated code supplies the two
/// conversions; `WireCodec` does the rest once for every message type.
protocol CStructBacked: WireMessage {
    /// protoc-c's struct, e.g. `Pushwire__V1__Frame`.
    associatedtype CStruct
    /// Reads an unpacked C struct.
    init(lifting c: UnsafePointer<CStruct>)
    /// Builds the C struct (and everything it points to) in `arena`.
    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<CStruct>
}

/// Encoding and decoding through protobuf-c, shared by every generated message.
///
/// Strings and NUL: protobuf-c keeps strings as NUL-terminated C strings, so a Swift `String`
/// holding U+0000 is encoded only up to that character. The decoder rejects NUL in strings
/// (`.invalidUTF8`) rather than silently cutting them, so a peer never sees a value other than the
/// one on the wire; senders that accept text from users should reject NUL before building a
/// message.
enum WireCodec {
    /// Decodes `M`: validate the bytes, unpack into an arena, convert to Swift, free the arena.
    /// - Parameter unpackLimit: the most memory protobuf-c may use (tests lower it).
    @inline(__always)
    static func decode<M: CStructBacked>(
        _ bytes: UnsafeRawBufferPointer, unpackLimit: Int = WireLimits.maxUnpackedBytes
    ) throws(WireDecodingError) -> M {
        let descriptor = M.descriptor
        try WireValidator.validate(bytes, descriptor)
        // Unpacking copies strings and bytes and adds the C structs, often 10× the encoding for
        // small messages of many short fields; start with room for that, without reserving 10× of
        // a large `bytes` payload.
        let capacity = 2048 + min(bytes.count * 10, bytes.count * 2 + 65536)
        let arena = ProtobufArena(capacity: min(capacity, unpackLimit), limit: unpackLimit)
        let data = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard let unpacked = protobuf_c_message_unpack(descriptor, arena.ref.allocator, bytes.count, data) else {
            if arena.ref.exhausted {
                throw WireDecodingError(.outOfMemory, "\(M.protoName): unpacking needs more than \(unpackLimit) bytes")
            }
            // The validator accepts only what protobuf-c accepts; this is a safety net.
            throw WireDecodingError(.malformed, "\(M.protoName): protobuf-c could not unpack the bytes")
        }
        return M(lifting: UnsafeRawPointer(unpacked).assumingMemoryBound(to: M.CStruct.self))
    }

    /// Decodes `M` from an array (the generated `init(decoding: [UInt8])`, specialised per type,
    /// so decoding from an array costs no generic dispatch).
    @inline(__always)
    static func decode<M: CStructBacked>(_ bytes: [UInt8]) throws(WireDecodingError) -> M {
        let result: Result<M, WireDecodingError> = bytes.withUnsafeBytes { raw in
            do throws(WireDecodingError) {
                return .success(try decode(raw))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Encodes `message` at the end of `buffer`: build its C struct tree, then let protobuf-c pack it
    /// straight into the buffer's tail.
    @inline(__always)
    static func encode<M: CStructBacked>(_ message: M, appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {
        // The C struct tree of a typical message fits; bigger ones grow the arena.
        let arena = ProtobufArena(capacity: 4096)
        let c = message.lower(arena.ref)
        let base = UnsafeRawPointer(c).assumingMemoryBound(to: ProtobufCMessage.self)
        let size = protobuf_c_message_get_packed_size(base)
        let prefix = lengthPrefixed ? 4 : 0
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: prefix + size))
        buffer.withUnsafeMutableBufferPointer { out in
            guard let tail = out.baseAddress.map({ $0 + start }) else { return }
            if lengthPrefixed {
                // Frames are limited far below 4 GiB (WireProtocol.defaultMaxFrameSize).
                let length = UInt32(truncatingIfNeeded: size)
                tail[0] = UInt8(truncatingIfNeeded: length >> 24)
                tail[1] = UInt8(truncatingIfNeeded: length >> 16)
                tail[2] = UInt8(truncatingIfNeeded: length >> 8)
                tail[3] = UInt8(truncatingIfNeeded: length)
            }
            if size > 0 { _ = protobuf_c_message_pack(base, tail + prefix) }
        }
    }
}

/// Small helpers the generated code calls.
enum WireSupport {
    /// protoc-c's descriptor of the C struct `C`, read from a struct its `__init` function set up.
    /// Swift imports the C descriptor object as a value, so its address is taken this way.
    static func descriptor<C>(_ type: C.Type, _ initialize: (UnsafeMutablePointer<C>?) -> Void) -> UnsafePointer<ProtobufCMessageDescriptor> {
        let p = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<C>.stride, alignment: 16)
        defer { p.deallocate() }
        initialize(p.bindMemory(to: C.self, capacity: 1))
        // Every protoc-c struct starts with `ProtobufCMessage base`, whose `descriptor` the
        // `__init` function sets to the static descriptor object.
        return p.load(as: UnsafePointer<ProtobufCMessageDescriptor>.self)
    }
}
