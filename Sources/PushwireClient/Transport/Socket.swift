#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call: its name and errno. Local only; the client maps it onto
/// `RPCError(.unavailable, …, cause:)` before a caller sees it.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    /// The call that failed, e.g. `connect`.
    public var call: String
    /// errno after the call.
    public var errno: Int32

    /// `connect: Connection refused (errno 111)`.
    public var description: String {
        "\(call): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Why an address string or a connection attempt failed before any socket call could.
public struct AddressError: Error, Sendable, CustomStringConvertible {
    /// What was wrong, for a person.
    public var message: String
    /// The message.
    public var description: String { message }
}

/// The few socket calls the client needs, each wrapped once: EINTR retried here, errno captured
/// into `SystemCallError`.
enum Socket {
    /// How long one blocked write may wait for the server to read.
    static let sendTimeout: Duration = .seconds(30)

    /// Splits `host:port`, `[v6]:port` into host and port.
    static func splitHostPort(_ address: String) throws(AddressError) -> (host: String, port: UInt16) {
        var host: Substring
        let portPart: Substring
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]") else {
                throw AddressError(message: "invalid address '\(address)': missing ']'")
            }
            host = address[address.index(after: address.startIndex)..<close]
            let rest = address[address.index(after: close)...]
            guard rest.hasPrefix(":") else {
                throw AddressError(message: "invalid address '\(address)': expected [host]:port")
            }
            portPart = rest.dropFirst()
        } else {
            guard let colon = address.lastIndex(of: ":") else {
                throw AddressError(message: "invalid address '\(address)': expected host:port")
            }
            host = address[..<colon]
            portPart = address[address.index(after: colon)...]
        }
        guard let port = UInt16(portPart), port != 0 else {
            throw AddressError(message: "invalid address '\(address)': bad port '\(portPart)'")
        }
        if host.isEmpty { host = "127.0.0.1" }
        return (String(host), port)
    }

    /// Resolves, then connects to the first address that accepts within `timeout`; returns a
    /// blocking socket with TCP_NODELAY set.
    static func connect(to address: String, timeout: Duration) throws -> Int32 {
        let (host, port) = try splitHostPort(address)
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw AddressError(message: "cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        let deadline = ContinuousClock.now + timeout
        var lastError: any Error = AddressError(message: "no address for '\(host)'")
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            do {
                return try connectOne(info.pointee, deadline: deadline)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private static func connectOne(_ info: addrinfo, deadline: ContinuousClock.Instant) throws -> Int32 {
        let fd = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), info.ai_protocol)
        guard fd >= 0 else { throw SystemCallError(call: "socket", errno: errno) }
        var ok = false
        defer { if !ok { _ = Glibc.close(fd) } }
        if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { throw SystemCallError(call: "connect", errno: errno) }
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            while true {
                let remaining = ContinuousClock.now.duration(to: deadline)
                let ms = max(0, Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
                if remaining <= .zero { throw SystemCallError(call: "connect", errno: ETIMEDOUT) }
                let n = poll(&pfd, 1, ms)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { throw SystemCallError(call: "poll", errno: errno) }
                if n == 0 { throw SystemCallError(call: "connect", errno: ETIMEDOUT) }
                break
            }
            var soError: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len) == 0 else {
                throw SystemCallError(call: "getsockopt", errno: errno)
            }
            if soError != 0 { throw SystemCallError(call: "connect", errno: soError) }
        }
        // Back to blocking: the reader thread blocks in read(2), writers write directly.
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags & ~Int32(O_NONBLOCK))
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        // Writes happen on the calling task's thread: bound how long a server that stops reading
        // can hold it; a write that times out counts as a lost connection.
        setTimeout(fd, option: SO_SNDTIMEO, sendTimeout)
        ok = true
        return fd
    }

    /// Sets how long a blocking read or write may wait; `nil` means forever.
    static func setTimeout(_ fd: Int32, option: Int32, _ timeout: Duration?) {
        var tv = timeval()
        if let timeout {
            tv.tv_sec = Int(timeout.components.seconds)
            tv.tv_usec = Int(timeout.components.attoseconds / 1_000_000_000_000)
        }
        _ = setsockopt(fd, SOL_SOCKET, option, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes`, retrying on EINTR and short writes.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = send(fd, base, left, Int32(MSG_NOSIGNAL))
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemCallError(call: "send", errno: errno)
            }
            left -= n
            base += n
        }
    }

    /// Reads at most `buffer.count` bytes; 0 means the peer closed.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw SystemCallError(call: "read", errno: errno)
        }
    }

    /// Shuts both directions so a thread blocked in `read` on `fd` wakes up.
    static func shutdown(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Closes `fd`.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}
