#if canImport(Glibc)
import Glibc
#endif

/// Name resolution and blocking TCP sockets for the client and the load generator (the server's
/// non-blocking listeners are in `Socket.swift`). getaddrinfo is wrapped once, here.
extension Syscall {
    /// Calls `body` with each address getaddrinfo gives for `target`, in its order, until `body`
    /// returns a value; throws the last error `body` threw, or `AddressError` when none resolved.
    package static func resolve<T>(
        _ target: HostPort, passive: Bool = false, _ body: (addrinfo) throws -> T
    ) throws -> T {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard rc == 0, let first = list else {
            throw AddressError(message: "cannot resolve '\(target.host)': \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var lastError: any Error = AddressError(message: "no address for '\(target.host)'")
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            do {
                return try body(info.pointee)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Resolves `address`, then connects to the first address that accepts within `timeout`
    /// (`nil`: as long as the kernel tries); returns a blocking, close-on-exec socket with
    /// TCP_NODELAY set.
    /// - Throws: `AddressError` for an address that does not parse or resolve; `SystemError`
    ///   otherwise, with `ETIMEDOUT` when the timeout ran out.
    public static func connect(to address: String, timeout: Duration?) throws -> Int32 {
        let target = try HostPort(parsing: address)
        let deadline = timeout.map { monotonicNanos() &+ nanoseconds($0) }
        return try resolve(target) { info in try connectOne(info, deadline: deadline) }
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }

    private static func connectOne(_ info: addrinfo, deadline: UInt64?) throws(SystemError) -> Int32 {
        // Non-blocking for the connect itself, so the timeout can bound it.
        let fd = try retrying("socket") {
            Glibc.socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), info.ai_protocol)
        }
        var ok = false
        defer { if !ok { close(fd) } }
        if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) != 0 {
            let error = Glibc.errno
            // EINTR: the connect goes on in the background, exactly as with EINPROGRESS.
            guard error == EINPROGRESS || error == EINTR else { throw SystemError("connect", errno: error) }
            var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
            while true {
                let now = monotonicNanos()
                if let deadline, now >= deadline { throw SystemError("connect", errno: ETIMEDOUT) }
                // Without a deadline, wake hourly: a finite timeout the kernel surely accepts.
                let wait = deadline.map { $0 - now } ?? 3_600_000_000_000
                if try poll(&fds, nanoseconds: wait) > 0 { break }
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = try retrying("getsockopt") { Glibc.getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) }
            if soError != 0 { throw SystemError("connect", errno: soError) }
        }
        setNonBlocking(fd, false)
        setNoDelay(fd)
        ok = true
        return fd
    }

    /// Resolves `address` (port 0 allowed) and listens on the first of its addresses that binds, with a blocking,
    /// close-on-exec socket with SO_REUSEADDR; returns the socket and the port it is bound to.
    public static func listenBlocking(on address: String, backlog: Int32 = 1024) throws -> (fd: Int32, port: UInt16) {
        let target = try HostPort(parsing: address, allowsPortZero: true)
        return try resolve(target, passive: true) { info throws -> (fd: Int32, port: UInt16) in
            let fd = try retrying("socket") { Glibc.socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0) }
            do {
                try setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
                _ = try retrying("bind") { Glibc.bind(fd, info.ai_addr, info.ai_addrlen) }
                try listen(fd, backlog: backlog)
                return (fd, UInt16(truncatingIfNeeded: try localAddress(fd).port))
            } catch {
                close(fd)
                throw error
            }
        }
    }
}
