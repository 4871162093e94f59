import CProtobufC

/// A bump allocator for protobuf-c's C structs, freed once in bulk.
///
/// Encoding builds the whole C struct tree of a message in one arena; decoding hands the arena to
/// `protobuf_c_message_unpack` as its `ProtobufCAllocator`. Nothing in an arena is freed on its own
/// (protobuf-c's `free` calls are no-ops), so an unpacked message is never freed twice or leaked:
/// the arena's owner releases every chunk when it goes out of scope.
struct ProtobufArena: ~Copyable {
    /// A copyable handle to the arena for the code that fills it; valid while the arena lives.
    let ref: ArenaRef

    /// Creates an arena whose first chunk holds `capacity` bytes; at most `limit` bytes may be
    /// handed out through `ArenaRef.allocate(byteCount:)` (protobuf-c's allocator).
    init(capacity: Int, limit: Int = .max) {
        let capacity = (max(capacity, 64) + 15) & ~15
        let headerSize = (MemoryLayout<ArenaHeader>.stride + 15) & ~15
        let block = UnsafeMutableRawPointer.allocate(byteCount: headerSize + capacity, alignment: 16)
        let header = block.bindMemory(to: ArenaHeader.self, capacity: 1)
        header.initialize(to: ArenaHeader(
            allocator: ProtobufCAllocator(alloc: arenaAlloc, free: arenaFree, allocator_data: UnsafeMutableRawPointer(header)),
            cursor: block + headerSize,
            end: block + headerSize + capacity,
            extraChunks: nil,
            nextChunkSize: capacity * 2,
            handedOut: 0,
            limit: limit,
            exhausted: false
        ))
        ref = ArenaRef(header: header)
    }

    deinit {
        var chunk = ref.header.pointee.extraChunks
        while let current = chunk {
            chunk = current.load(as: UnsafeMutableRawPointer?.self)
            current.deallocate()
        }
        ref.header.deinitialize(count: 1)
        UnsafeMutableRawPointer(ref.header).deallocate()
    }
}

/// The arena's bookkeeping, at the start of its first chunk.
struct ArenaHeader {
    var allocator: ProtobufCAllocator
    var cursor: UnsafeMutableRawPointer
    var end: UnsafeMutableRawPointer
    /// Chunks after the first, linked through their first 16 bytes.
    var extraChunks: UnsafeMutableRawPointer?
    var nextChunkSize: Int
    /// Bytes handed out so far, counted against `limit`.
    var handedOut: Int
    var limit: Int
    /// Set when an allocation was refused because of `limit`.
    var exhausted: Bool
}

// protobuf-c's allocator callbacks. `allocator_data` is the arena's header.
private let arenaAlloc: @convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer? = { data, size in
    guard let data else { return nil }
    return ArenaRef(header: data.assumingMemoryBound(to: ArenaHeader.self)).allocate(byteCount: size)
}

// Freeing happens once, in bulk, when the arena ends.
private let arenaFree: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, _ in }

/// A handle to a live `ProtobufArena`, passed to the generated `lower` functions.
struct ArenaRef {
    let header: UnsafeMutablePointer<ArenaHeader>

    /// The arena as protobuf-c's allocator (for `protobuf_c_message_unpack`).
    var allocator: UnsafeMutablePointer<ProtobufCAllocator> {
        UnsafeMutableRawPointer(header).assumingMemoryBound(to: ProtobufCAllocator.self)
    }

    /// Whether an allocation was refused for exceeding the limit.
    var exhausted: Bool { header.pointee.exhausted }

    /// 16-byte aligned memory counted against the limit; nil beyond it.
    @inline(__always)
    func allocate(byteCount: Int) -> UnsafeMutableRawPointer? {
        // A size_t above Int.max arrives negative; refuse it with anything past the limit.
        guard byteCount >= 0, byteCount <= Int.max - 15, byteCount <= header.pointee.limit - header.pointee.handedOut else {
            header.pointee.exhausted = true
            return nil
        }
        let size = (byteCount &+ 15) & ~15
        guard header.pointee.limit - header.pointee.handedOut >= size else {
            header.pointee.exhausted = true
            return nil
        }
        header.pointee.handedOut += size
        return take(alignedSize: size)
    }

    /// 16-byte aligned memory for encoding, not counted against the limit (the message being
    /// encoded is already in memory, and its C form is about as large).
    @inline(__always)
    func take(byteCount: Int) -> UnsafeMutableRawPointer {
        take(alignedSize: (byteCount + 15) & ~15)
    }

    @inline(__always)
    private func take(alignedSize size: Int) -> UnsafeMutableRawPointer {
        let cursor = header.pointee.cursor
        if header.pointee.end - cursor >= size {
            header.pointee.cursor = cursor + size
            return cursor
        }
        return grow(size)
    }

    private func grow(_ size: Int) -> UnsafeMutableRawPointer {
        let chunkSize = max(size, header.pointee.nextChunkSize)
        header.pointee.nextChunkSize = chunkSize * 2
        // Swift's allocator stops the process when memory is exhausted, like any Swift allocation.
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: 16 + chunkSize, alignment: 16)
        chunk.storeBytes(of: header.pointee.extraChunks, as: UnsafeMutableRawPointer?.self)
        header.pointee.extraChunks = chunk
        let start = chunk + 16
        header.pointee.cursor = start + size
        header.pointee.end = start + chunkSize
        return start
    }

    // MARK: Building C structs

    /// A C message struct initialised by its protoc-c `__init` function.
    @inline(__always)
    func message<C>(_ type: C.Type, _ initialize: (UnsafeMutablePointer<C>?) -> Void) -> UnsafeMutablePointer<C> {
        let p = take(byteCount: MemoryLayout<C>.stride).bindMemory(to: C.self, capacity: 1)
        initialize(p)
        return p
    }

    /// The string's UTF-8 bytes, NUL-terminated, as protobuf-c expects. protobuf-c measures the
    /// string with `strlen`, so a string containing NUL is encoded up to its first NUL.
    @inline(__always)
    func string(_ value: String) -> UnsafeMutablePointer<CChar> {
        var value = value
        return value.withUTF8 { utf8 in
            let p = take(byteCount: utf8.count + 1)
            if let source = utf8.baseAddress { p.copyMemory(from: source, byteCount: utf8.count) }
            p.storeBytes(of: 0, toByteOffset: utf8.count, as: UInt8.self)
            return p.bindMemory(to: CChar.self, capacity: utf8.count + 1)
        }
    }

    /// A `bytes` field's value.
    @inline(__always)
    func bytes(_ value: [UInt8]) -> ProtobufCBinaryData {
        value.withUnsafeBytes { raw in
            guard let source = raw.baseAddress, raw.count > 0 else { return ProtobufCBinaryData(len: 0, data: nil) }
            let p = take(byteCount: raw.count)
            p.copyMemory(from: source, byteCount: raw.count)
            return ProtobufCBinaryData(len: raw.count, data: p.bindMemory(to: UInt8.self, capacity: raw.count))
        }
    }

    /// A repeated message field: an array of pointers to C structs.
    func messages<M: CStructBacked>(_ values: [M]) -> UnsafeMutablePointer<UnsafeMutablePointer<M.CStruct>?>? {
        mapped(values) { $0.lower(self) }
    }

    /// A repeated string field.
    func strings(_ values: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        mapped(values) { string($0) }
    }

    /// A repeated scalar field whose Swift and C types are the same.
    func scalars<T>(_ values: [T]) -> UnsafeMutablePointer<T>? {
        values.withUnsafeBufferPointer { buffer in
            guard let source = buffer.baseAddress, buffer.count > 0 else { return nil }
            let p = take(byteCount: MemoryLayout<T>.stride * buffer.count).bindMemory(to: T.self, capacity: buffer.count)
            p.initialize(from: source, count: buffer.count)
            return p
        }
    }

    /// A repeated field whose elements are converted one by one.
    @inline(__always)
    func mapped<T, U>(_ values: [T], _ transform: (T) -> U) -> UnsafeMutablePointer<U>? {
        guard !values.isEmpty else { return nil }
        let p = take(byteCount: MemoryLayout<U>.stride * values.count).bindMemory(to: U.self, capacity: values.count)
        for i in values.indices { (p + i).initialize(to: transform(values[i])) }
        return p
    }
}
