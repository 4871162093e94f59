/// Why the byte stream from the server cannot be read further.
enum FrameStreamError: Error, Sendable, CustomStringConvertible {
    /// The first 8 bytes were not `PWIRE/1\n`.
    case badPreface
    /// A length prefix above the limit.
    case frameTooLarge(length: Int, limit: Int)

    var description: String {
        switch self {
        case .badPreface: "the server did not answer with the PWIRE/1 preface"
        case .frameTooLarge(let length, let limit): "a frame of \(length) bytes, above the limit of \(limit)"
        }
    }
}

/// The receive buffer of one connection: bytes are read straight into its tail, whole frames
/// are handed out as slices of it (valid until the next call), so reading allocates nothing per
/// frame. Owned by the connection's reader thread alone.
final class FrameReader {
    private var storage: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var expectsPreface: Bool
    /// The largest frame accepted; a larger announced length fails before its payload is buffered.
    var maxFrameSize: Int

    init(maxFrameSize: Int, expectsPreface: Bool = true, capacity: Int = 64 * 1024) {
        self.maxFrameSize = maxFrameSize
        self.expectsPreface = expectsPreface
        storage = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { storage.deallocate() }

    /// Calls `body` with the free tail of the buffer (at least `minimum` bytes) and counts the
    /// bytes it reports written.
    func fill(minimum: Int = 16 * 1024, _ body: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows -> Int {
        if start == end { start = 0; end = 0 }
        if storage.count - end < minimum {
            let used = end - start
            if start > 0 && storage.count - used >= minimum {
                // Compact: move the partial frame to the front.
                storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: used)
            } else {
                let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(storage.count * 2, used + minimum), alignment: 8)
                grown.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: used)
                storage.deallocate()
                storage = grown
            }
            start = 0
            end = used
        }
        let n = try body(UnsafeMutableRawBufferPointer(rebasing: storage[end...]))
        end += n
        return n
    }

    /// The payload of the next whole frame, or `nil` when more bytes are needed. The slice is
    /// valid until the next `fill` or `nextFrame`.
    func nextFrame() throws(FrameStreamError) -> UnsafeRawBufferPointer? {
        if expectsPreface {
            guard end - start >= OutboundFrames.preface.count else { return nil }
            for (i, byte) in OutboundFrames.preface.enumerated() where storage[start + i] != byte {
                throw .badPreface
            }
            start += OutboundFrames.preface.count
            expectsPreface = false
        }
        guard end - start >= 4 else { return nil }
        let length = Int(storage[start]) << 24 | Int(storage[start + 1]) << 16 | Int(storage[start + 2]) << 8 | Int(storage[start + 3])
        guard length <= maxFrameSize else { throw .frameTooLarge(length: length, limit: maxFrameSize) }
        guard end - start >= 4 + length else { return nil }
        let payload = UnsafeRawBufferPointer(rebasing: storage[(start + 4)..<(start + 4 + length)])
        start += 4 + length
        return payload
    }
}
