/// What one `OutputBuffer.flush(into:sent:)` came to.
enum FlushOutcome {
    /// Everything was written; the buffer is empty.
    case drained
    /// The stream would block with bytes left: they wait for EPOLLOUT.
    case blocked
    /// The stream is broken; the text says why (errno, or TLS's reason). The door closes.
    case failed(String)

    /// The door's EPOLLOUT interest after this flush, from the interest before it: asked for
    /// while bytes wait, dropped once they are written unless a TLS read is also waiting for the
    /// socket to take a handshake message (`readWantsWrite`); unchanged after a failure.
    func writableInterest(before: Bool, readWantsWrite: Bool) -> Bool {
        switch self {
        case .blocked: true
        case .drained: before && readWantsWrite
        case .failed: before
        }
    }
}

/// A connection's unsent output, for both doors (the binary RPC `Connection` and the
/// `HTTPConnection`): the bytes every answer of a read batch or loop iteration is appended to,
/// and how far they have been written. `flush` writes all of it at once, so that under TLS every
/// flush is one `SSL_write` (one record up to 16 KiB) however many answers it holds.
///
/// Loop thread only (the owning connection's).
struct OutputBuffer {
    /// The answers, appended by the door; those before `start` are written.
    var bytes: [UInt8] = []
    /// Bytes of `bytes` already written.
    private(set) var start = 0

    /// Above this a drained buffer's storage is given back rather than kept: a burst for a slow
    /// reader does not stay allocated for the connection's life.
    static let keptCapacity = 256 * 1024

    /// Bytes appended and not written yet.
    var pending: Int { bytes.count - start }

    /// Whether bytes wait to be written.
    var hasPending: Bool { start < bytes.count }

    /// What the buffer holds allocated, for the byte budget.
    var capacity: Int { bytes.capacity }

    /// Writes what is pending until it is all written or `stream` would block; `sent` is told
    /// the size of each write (each door counts its own bytes). Drained, the buffer keeps its
    /// storage for the next answers unless it grew past `keptCapacity`.
    mutating func flush(into stream: borrowing ByteStream, sent: (Int) -> Void) -> FlushOutcome {
        while start < bytes.count {
            let from = start
            let result = bytes.withUnsafeBytes { stream.send(UnsafeRawBufferPointer(rebasing: $0[from...])) }
            switch result {
            case .bytes(let count):
                start += count
                sent(count)
            case .wouldBlock:
                return .blocked
            case .failed(let reason):
                return .failed(reason)
            }
        }
        if bytes.capacity > Self.keptCapacity { bytes = [] } else { bytes.removeAll(keepingCapacity: true) }
        start = 0
        return .drained
    }

    /// Drops what is pending and gives the storage back (the connection closed, or idles).
    mutating func release() {
        bytes = []
        start = 0
    }
}
