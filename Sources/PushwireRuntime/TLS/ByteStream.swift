#if canImport(Glibc)
import Glibc
#endif

/// An accepted connection's byte stream: the socket, with a TLS session over it when the
/// listener speaks TLS. Both doors (the binary RPC `Connection` and the `HTTPConnection`) read,
/// write, shut down and close through this one seam, so clear text and TLS differ only here.
///
/// Loop thread only (the owning connection's).
struct ByteStream: ~Copyable {
    private var fd: FileDescriptor
    /// TLS under the stream; nil: clear text.
    private(set) var tls: TLSSession?
    /// When an unfinished TLS handshake is given up (monotonic nanoseconds); 0 without TLS.
    private let handshakeDeadline: UInt64
    private var writeShutDown = false

    /// A clear-text stream on `fd`.
    init(clearText fd: consuming FileDescriptor) {
        self.fd = fd
        tls = nil
        handshakeDeadline = 0
    }

    /// A TLS stream on `fd` (server side, the handshake runs inside the first reads) on the
    /// context's current certificate, speaking `application` in ALPN; nil when OpenSSL cannot
    /// make a session (the socket is closed with it).
    init?(tls context: TLSServerContext, application: TLSApplication, fd: consuming FileDescriptor, now: UInt64) {
        guard let session = TLSSession(context: context, fd: fd.raw, application: application) else { return nil }
        self.fd = fd
        tls = session
        handshakeDeadline = now &+ context.handshakeTimeout.nanoseconds
    }

    /// The descriptor, for epoll and socket options.
    var raw: Int32 { fd.raw }

    /// Whether the stream still has its descriptor.
    var isOpen: Bool { fd.isOpen }

    /// Whether the stream is TLS.
    var isTLS: Bool { tls != nil }

    /// Whether application bytes can flow: always in clear text, after the handshake under TLS.
    var isHandshakeDone: Bool { tls?.isHandshakeDone ?? true }

    /// Whether an unfinished TLS handshake has outlived the handshake timeout at `now`.
    func handshakeExpired(now: UInt64) -> Bool {
        guard let tls, !tls.isHandshakeDone else { return false }
        return now > handshakeDeadline
    }

    /// The last read could not go on until the socket is writable (a TLS handshake message did
    /// not fit): the owner asks for EPOLLOUT and reads again then.
    var readWantsWrite: Bool { tls?.readWantsWrite ?? false }

    /// Whether the TLS client presented a certificate leading to the server's client CA; false
    /// in clear text.
    var clientCertificateVerified: Bool { tls?.clientCertificateVerified ?? false }

    /// What OpenSSL holds for this stream (`TLSSession.footprint`); 0 in clear text.
    var footprint: Int { tls?.footprint ?? 0 }

    /// Whether a read that filled less than its buffer may still have left bytes behind. In clear
    /// text a short read drained the socket (edge triggering raises a new event for more); under
    /// TLS a read stops short once the socket is drained and OpenSSL holds no record, and reports
    /// an end or failure met after some records on the next read, which this asks for.
    var shortReadMayLeaveMore: Bool { tls?.lastReadMayHaveLeftMore ?? false }

    /// One read: the socket, or the TLS session over it.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> StreamRead {
        if let tls { return tls.read(into: buffer) }
        switch Result(catching: { () throws(SystemError) in try Syscall.read(fd.raw, into: buffer) }) {
        case .success(.processed(0)): return .end
        case .success(.processed(let count)): return .bytes(count)
        case .success(.wouldBlock): return .wouldBlock
        case .failure(let error): return .failed("\(error)")
        }
    }

    /// One write.
    func send(_ buffer: UnsafeRawBufferPointer) -> StreamWrite {
        if let tls { return tls.write(from: buffer) }
        switch Result(catching: { () throws(SystemError) in try Syscall.write(fd.raw, from: buffer) }) {
        case .success(.processed(let count)): return .bytes(count)
        case .success(.wouldBlock): return .wouldBlock
        case .failure(let error): return .failed("\(error)")
        }
    }

    /// Ends the write side once: TLS's close_notify (best effort), then the socket's FIN.
    mutating func shutdownWrite() {
        guard !writeShutDown, fd.isOpen else { return }
        writeShutDown = true
        tls?.shutdown()
        Syscall.shutdownWrite(fd.raw)
    }

    /// Closes the descriptor and gives OpenSSL's session and buffers back now, not when the last
    /// reference to the owning connection goes.
    mutating func close() {
        fd.close()
        tls = nil
    }
}
