/// Turns the bytes of a connection, as they arrive, into frames: the preface check, then
/// 4-byte big-endian lengths each followed by a protobuf `Frame` (docs/PROTOCOL.md).
///
/// Bytes go into one growable buffer with a read index. A socket reads straight into its free
/// tail (`withWritableTail`), and frames are decoded straight from the buffer, so a byte is copied
/// only by protobuf-c's unpack and by the occasional compaction:
/// - an announced length above `maxFrameSize` is rejected as soon as its 4 bytes are in, before
///   any of the payload is buffered;
/// - the unread bytes move to the front only once the read index has passed half the buffer, so a
///   byte is moved at most as often as a byte before it was consumed: linear overall;
/// - the buffer grows with the bytes actually received (doubling), never ahead of them to the
///   announced length, so a peer that announces a large frame and stalls costs little; and a
///   doubling never goes past the end of the frame being received (plus the read's room), so an
///   incomplete frame costs about its own bytes, not up to twice them;
/// - after a large frame the buffer shrinks back, so an idle connection keeps at most
///   `retainedCapacity` bytes rather than its largest frame.
///
/// Call `nextFrame()` until it returns nil after each read; bytes appended without being decoded
/// are buffered without limit.
public struct FrameDecoder: Sendable {
    /// The largest payload accepted, in bytes.
    public let maxFrameSize: Int

    /// The first allocation: enough for a typical read and many small frames.
    static let initialCapacity = 16 * 1024
    /// The most a drained decoder keeps allocated: an idle connection costs at most this.
    static let retainedCapacity = 64 * 1024
    /// Above this size, a buffer holding only a small partial frame is shrunk without waiting to
    /// be drained: what is left after a large frame.
    static let shrinkThreshold = 4 * retainedCapacity

    /// Bytes `[readIndex, writeIndex)` are received and not yet decoded; the rest is free space.
    /// `storage.count` is the capacity; it is allocated lazily so an idle connection costs nothing.
    private var storage: [UInt8] = []
    private var readIndex = 0
    private var writeIndex = 0
    private var awaitingPreface: Bool
    /// Set by an error after which the stream cannot be resynchronised; thrown again on every call.
    private var failure: FramingError?

    /// What the buffer management cost, so tests can check linearity without timing anything.
    struct Statistics: Sendable, Equatable {
        /// Times the unread bytes were moved to the front of the buffer.
        var compactions = 0
        /// Bytes moved by compactions, growths and shrinks together.
        var bytesMoved = 0
        /// Times a new buffer was allocated.
        var allocations = 0
    }

    /// What the buffer management cost so far.
    private(set) var statistics = Statistics()

    /// Creates a decoder.
    /// - Parameters:
    ///   - maxFrameSize: the largest payload accepted; a larger announced length throws
    ///     `FramingError.frameTooLarge`.
    ///   - expectsPreface: whether the stream starts with `WireProtocol.preface`, checked and
    ///     consumed by the first `nextFrame()` calls. True on both sides of a Pushwire connection
    ///     (each side sends one); false for streams of bare frames such as the golden vectors.
    public init(maxFrameSize: Int = WireProtocol.defaultMaxFrameSize, expectsPreface: Bool) {
        self.maxFrameSize = maxFrameSize
        self.awaitingPreface = expectsPreface
    }

    /// Bytes received and not yet decoded.
    public var bufferedByteCount: Int { writeIndex - readIndex }

    /// Bytes currently allocated for the buffer (received or free).
    public var allocatedByteCount: Int { storage.count }

    /// Whether a whole frame is buffered (and not yet decoded): a reader that stopped decoding
    /// for backpressure tells waiting frames from a frame still arriving.
    public var hasCompleteFrame: Bool {
        guard let size = announcedFrameSize() else { return false }
        return bufferedByteCount >= size
    }

    /// Lets the caller write received bytes straight into the buffer, e.g. with `read(2)`.
    /// - Parameters:
    ///   - minimumCapacity: how many free bytes `body` is given at least (at least 1).
    ///   - body: writes into the free space it is given and returns how many bytes it wrote
    ///     (0 up to the space's count); throws to report a failed read, which leaves the buffer as
    ///     it was.
    /// - Returns: what `body` returned.
    @discardableResult
    public mutating func withWritableTail(
        minimumCapacity: Int,
        _ body: (UnsafeMutableRawBufferPointer) throws -> Int
    ) rethrows -> Int {
        reserveTail(max(minimumCapacity, 1))
        let start = writeIndex
        let written = try storage.withUnsafeMutableBytes { all in
            try body(UnsafeMutableRawBufferPointer(rebasing: all[start...]))
        }
        // A count outside the space is a bug in the caller's code, not something a peer can cause.
        precondition(written >= 0 && written <= storage.count - start, "withWritableTail: body wrote \(written) bytes")
        writeIndex += written
        return written
    }

    /// Appends received bytes (copying them); prefer `withWritableTail` when reading a socket.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        withWritableTail(minimumCapacity: bytes.count) { tail in
            tail.copyMemory(from: bytes)
            return bytes.count
        }
    }

    /// Appends received bytes (copying them).
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Decodes the next frame when all of it has arrived, straight from the buffer.
    /// - Returns: the frame, or nil when more bytes are needed.
    /// - Throws: `FramingError`: `.badPreface` and `.frameTooLarge` end the stream (every later
    ///   call throws them again); after `.undecodableFrame` and `.emptyFrame` the frame's bytes are
    ///   consumed, though a peer that sent them has broken the protocol.
    public mutating func nextFrame() throws(FramingError) -> Frame? {
        let decoded = try withNextPayload { payload -> Result<Frame, WireDecodingError> in
            Result { () throws(WireDecodingError) in try Frame(decoding: payload) }
        }
        switch decoded {
        case nil:
            return nil
        case .success(let frame)?:
            guard frame.kind != nil else { throw .emptyFrame }
            return frame
        case .failure(let error)?:
            throw .undecodableFrame(error)
        }
    }

    /// Hands the next payload to `body` straight from the buffer once all of it has arrived, then
    /// consumes it.
    /// - Returns: what `body` returned, or nil when more bytes are needed.
    /// - Throws: `.badPreface` and `.frameTooLarge`, which end the stream (every later call throws
    ///   them again).
    ///
    /// Public for the server's raw fast paths, which scan a request in place before deciding
    /// whether the frame needs decoding at all.
    public mutating func withNextPayload<Value>(_ body: (UnsafeRawBufferPointer) -> Value) throws(FramingError) -> Value? {
        guard let payload = try nextPayloadRange() else { return nil }
        let result = storage.withUnsafeBytes { all in body(UnsafeRawBufferPointer(rebasing: all[payload])) }
        consume(upTo: payload.upperBound)
        return result
    }

    /// The next payload, copied out: the length layer alone, for tests.
    mutating func nextPayload() throws(FramingError) -> [UInt8]? {
        try withNextPayload { Array($0) }
    }

    /// Checks the preface and the next length prefix; returns where the payload lies in `storage`
    /// once all of it is buffered, without consuming it.
    private mutating func nextPayloadRange() throws(FramingError) -> Range<Int>? {
        if let failure { throw failure }
        if awaitingPreface {
            let preface = WireProtocol.preface
            let available = min(bufferedByteCount, preface.count)
            // Reject a wrong preface as soon as one byte differs, so that e.g. an HTTP client is
            // turned away without waiting for 8 bytes.
            for offset in 0..<available where storage[readIndex + offset] != preface[offset] {
                return try fail(.badPreface)
            }
            guard available == preface.count else { return nil }
            consume(upTo: readIndex + preface.count)
            awaitingPreface = false
        }
        let prefixSize = WireProtocol.lengthPrefixSize
        guard bufferedByteCount >= prefixSize else { return nil }
        var length = 0
        for offset in 0..<prefixSize {
            length = length << 8 | Int(storage[readIndex + offset])
        }
        guard length <= maxFrameSize else {
            return try fail(.frameTooLarge(length: length, limit: maxFrameSize))
        }
        let frameSize = prefixSize + length
        // No room is reserved for the rest of the frame before it arrives: a peer announcing 4 MiB
        // and sending 4 bytes must not cost 4 MiB. The buffer grows (doubling) as bytes come in.
        guard bufferedByteCount >= frameSize else { return nil }
        let start = readIndex + prefixSize
        return start..<(start + length)
    }

    private mutating func fail(_ error: FramingError) throws(FramingError) -> Range<Int>? {
        failure = error
        // Nothing more will be decoded: free the buffer now rather than when the connection goes.
        storage = []
        readIndex = 0
        writeIndex = 0
        throw error
    }

    /// Marks the bytes before `end` as decoded, then compacts or shrinks the buffer when due.
    private mutating func consume(upTo end: Int) {
        readIndex = end
        if readIndex == writeIndex {
            readIndex = 0
            writeIndex = 0
            // Drained: the moment to give back a large buffer, since nothing has to be moved.
            if storage.count > Self.retainedCapacity {
                storage = []
            }
        } else if storage.count > Self.shrinkThreshold && bufferedByteCount <= Self.retainedCapacity / 2 {
            // Only well above the size steady reads grow to (a read's minimum capacity plus a partial
            // frame), so that a busy connection does not shrink and regrow on every read.
            reallocate(capacity: max(Self.initialCapacity, bufferedByteCount * 2))
        } else if readIndex > storage.count / 2 {
            compact()
        }
    }

    /// Makes sure at least `count` bytes are free after `writeIndex`.
    private mutating func reserveTail(_ count: Int) {
        guard storage.count - writeIndex < count else { return }
        let unread = bufferedByteCount
        // Moving the unread bytes to the front is enough when they fit with the room asked for,
        // and cheap when they are no more than what was consumed (each consumed byte pays for at
        // most one moved byte); otherwise grow, at least doubling so growth stays linear.
        if readIndex >= unread && storage.count - unread >= count {
            compact()
        } else {
            var capacity = max(Self.initialCapacity, unread + count, storage.count * 2)
            // While a large frame comes in, doubling would leave on average a third of the buffer
            // unused (a 2.1 MiB frame in 4 MiB): stop at the frame's end plus the room asked for.
            // Only for a frame the buffer cannot hold: capping for small frames would keep the
            // buffer at one read's room and compact on every read of a steady stream.
            if let frameEnd = announcedFrameSize(), frameEnd > unread, frameEnd > storage.count {
                capacity = min(capacity, max(Self.initialCapacity, frameEnd + count))
            }
            reallocate(capacity: capacity)
        }
    }

    /// The size (prefix included) of the frame at the read index, once its length prefix is in
    /// and within the limit.
    private func announcedFrameSize() -> Int? {
        let prefixSize = WireProtocol.lengthPrefixSize
        guard !awaitingPreface, failure == nil, bufferedByteCount >= prefixSize else { return nil }
        var length = 0
        for offset in 0..<prefixSize {
            length = length << 8 | Int(storage[readIndex + offset])
        }
        return length <= maxFrameSize ? prefixSize + length : nil
    }

    /// Moves the unread bytes to the front of the buffer.
    private mutating func compact() {
        let unread = bufferedByteCount
        if unread > 0 {
            let from = readIndex
            storage.withUnsafeMutableBytes { all in
                guard let base = all.baseAddress else { return }
                (base).copyMemory(from: base + from, byteCount: unread)
            }
            statistics.bytesMoved += unread
        }
        statistics.compactions += 1
        readIndex = 0
        writeIndex = unread
    }

    /// Replaces the buffer with one of `capacity` bytes holding the unread bytes at its front.
    private mutating func reallocate(capacity: Int) {
        let unread = bufferedByteCount
        var grown = [UInt8](repeating: 0, count: capacity)
        if unread > 0 {
            let from = readIndex
            grown.withUnsafeMutableBytes { target in
                storage.withUnsafeBytes { source in
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[from..<(from + unread)]))
                }
            }
            statistics.bytesMoved += unread
        }
        statistics.allocations += 1
        storage = grown
        readIndex = 0
        writeIndex = unread
    }
}
