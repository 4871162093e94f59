#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux

/// Every system call the runtime, the client and the load generator make goes through the helpers
/// here and in `Syscall+Blocking.swift` / `Syscall+Connect.swift`: EINTR is retried in one place,
/// EAGAIN on a non-blocking descriptor becomes `IOResult.wouldBlock`, and every other failure is a
/// `SystemError` naming the call.
public enum Syscall {
    /// Runs `body` until it does not fail with EINTR; -1 becomes a `SystemError` for `name`.
    @inline(__always)
    package static func retrying<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let error = Glibc.errno
            if error == EINTR { continue }
            throw SystemError(name, errno: error)
        }
    }

    /// Like `retrying`, but EAGAIN/EWOULDBLOCK is returned as `.wouldBlock`.
    @inline(__always)
    package static func nonBlocking<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> IOResult<T> {
        while true {
            let result = body()
            if result != -1 { return .processed(result) }
            let error = Glibc.errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK { return .wouldBlock }
            throw SystemError(name, errno: error)
        }
    }

    package static func socket(domain: Int32, type: Int32) throws(SystemError) -> Int32 {
        try retrying("socket") { Glibc.socket(domain, type | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
    }

    package static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) throws(SystemError) {
        var value = value
        _ = try retrying("setsockopt") {
            Glibc.setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    package static func bind(_ fd: Int32, _ address: SocketAddress) throws(SystemError) {
        _ = try address.withSockAddr { pointer, length throws(SystemError) in
            try retrying("bind") { Glibc.bind(fd, pointer, length) }
        }
    }

    package static func listen(_ fd: Int32, backlog: Int32) throws(SystemError) {
        _ = try retrying("listen") { Glibc.listen(fd, backlog) }
    }

    /// Accepts one connection as a non-blocking, close-on-exec socket.
    package static func accept(_ fd: Int32) throws(SystemError) -> IOResult<(Int32, SocketAddress)> {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = try withUnsafeMutablePointer(to: &storage) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                try nonBlocking("accept4") { cpw_accept4(fd, address, &length) }
            }
        }
        switch result {
        case .wouldBlock: return .wouldBlock
        case .processed(let client): return .processed((client, SocketAddress(storage: storage)))
        }
    }

    package static func localAddress(_ fd: Int32) throws(SystemError) -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemError) in
                try retrying("getsockname") { Glibc.getsockname(fd, address, &length) }
            }
        }
        return SocketAddress(storage: storage)
    }

    /// Reads at most `buffer.count` bytes from a non-blocking descriptor; `.processed(0)` is end of stream.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try nonBlocking("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Writes at most `buffer.count` bytes to a non-blocking socket.
    public static func write(_ fd: Int32, from buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        // send with MSG_NOSIGNAL: a peer that closed must give EPIPE, not kill the process.
        try nonBlocking("send") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Closes `fd`. EINTR is not retried: on Linux the descriptor is released even then.
    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    package static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Waits for `fds` for at most `nanoseconds` (ppoll). EINTR returns 0, as a wake-up with
    /// nothing ready: the caller recomputes its timeout anyway.
    public static func poll(_ fds: inout [pollfd], nanoseconds: UInt64) throws(SystemError) -> Int32 {
        let result = fds.withUnsafeMutableBufferPointer { cpw_ppoll($0.baseAddress, UInt($0.count), nanoseconds) }
        if result >= 0 { return result }
        let error = Glibc.errno
        if error == EINTR { return 0 }
        throw SystemError("ppoll", errno: error)
    }

    package static func epollCreate() throws(SystemError) -> Int32 {
        try retrying("epoll_create1") { cpw_epoll_create() }
    }

    package static func epollControl(_ epfd: Int32, _ operation: Int32, _ fd: Int32, events: UInt32) throws(SystemError) {
        _ = try retrying("epoll_ctl") { cpw_epoll_ctl(epfd, operation, fd, events) }
    }

    package static func epollWait(
        _ epfd: Int32, scratch: UnsafeMutableRawPointer, into events: UnsafeMutablePointer<cpw_epoll_event>,
        capacity: Int32, timeoutMS: Int32
    ) throws(SystemError) -> Int32 {
        try retrying("epoll_wait") { cpw_epoll_wait(epfd, scratch, events, capacity, timeoutMS) }
    }

    package static func eventFD() throws(SystemError) -> Int32 {
        try retrying("eventfd") { cpw_eventfd() }
    }

    /// Adds one to an eventfd's counter, waking whoever waits on it.
    package static func signalEventFD(_ fd: Int32) {
        var one: UInt64 = 1
        // EAGAIN means the counter is already non-zero: the loop will wake anyway.
        _ = try? nonBlocking("write(eventfd)") { Glibc.write(fd, &one, 8) }
    }

    /// Resets an eventfd's counter after a wake-up.
    package static func drainEventFD(_ fd: Int32) {
        var value: UInt64 = 0
        _ = try? nonBlocking("read(eventfd)") { Glibc.read(fd, &value, 8) }
    }
}
