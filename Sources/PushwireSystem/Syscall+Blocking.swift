#if canImport(Glibc)
import Glibc
#endif

/// Calls on blocking descriptors: the client's connection (a reader thread blocked in read(2),
/// writers writing directly) and the load generator's loopback server. Same conventions as the
/// non-blocking calls: EINTR retried here, every failure a `SystemError`; on a blocking descriptor
/// EAGAIN only means that SO_RCVTIMEO/SO_SNDTIMEO ran out, so it is thrown like any error.
extension Syscall {
    /// Reads at most `buffer.count` bytes, waiting for at least one; 0 means the peer closed.
    public static func blockingRead(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try retrying("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Sends all of `bytes` on a blocking socket, through short writes; MSG_NOSIGNAL, so a peer
    /// that closed gives EPIPE instead of killing the process.
    public static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let sent = try retrying("send") { Glibc.send(fd, base, left, Int32(MSG_NOSIGNAL)) }
            left -= sent
            base += sent
        }
    }

    /// Writes all of `bytes` to a blocking descriptor that need not be a socket (stdout, stderr),
    /// through short writes.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = try retrying("write") { Glibc.write(fd, base, left) }
            left -= written
            base += written
        }
    }

    /// Accepts one connection on a blocking listener, as a close-on-exec blocking socket with
    /// TCP_NODELAY.
    public static func blockingAccept(_ listener: Int32) throws(SystemError) -> Int32 {
        let fd = try retrying("accept") { Glibc.accept(listener, nil, nil) }
        setNoDelay(fd)
        return fd
    }

    /// Shuts both directions, so a thread blocked in `read` on `fd` wakes up.
    public static func shutdown(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Turns O_NONBLOCK on or off.
    public static func setNonBlocking(_ fd: Int32, _ on: Bool = true) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~Int32(O_NONBLOCK))
    }

    /// Sets TCP_NODELAY: frames are small and latency matters more than packet count.
    public static func setNoDelay(_ fd: Int32) {
        _ = try? setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
    }

    /// Sets how long a blocking read (`SO_RCVTIMEO`) or write (`SO_SNDTIMEO`) may wait; `nil`
    /// means forever.
    public static func setTimeout(_ fd: Int32, option: Int32, _ timeout: Duration?) {
        var tv = timeval()
        if let timeout {
            tv.tv_sec = Int(timeout.components.seconds)
            tv.tv_usec = Int(timeout.components.attoseconds / 1_000_000_000_000)
        }
        _ = Glibc.setsockopt(fd, SOL_SOCKET, option, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
}
