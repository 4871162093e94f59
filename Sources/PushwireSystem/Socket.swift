#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor with exactly one owner, closed exactly once (by `close()` or on deinit).
///
/// `~Copyable`, so the compiler refuses a second owner; the event loop holds it inside the object
/// (listener, connection) that is registered for its events.
package struct FileDescriptor: ~Copyable {
    /// The raw descriptor; -1 once closed.
    package private(set) var raw: Int32

    package init(_ raw: Int32) { self.raw = raw }

    /// Closes the descriptor now; later calls do nothing.
    package mutating func close() {
        if raw >= 0 {
            Syscall.close(raw)
            raw = -1
        }
    }

    package var isOpen: Bool { raw >= 0 }

    /// Gives up ownership without closing: the caller now owns the returned descriptor (used to
    /// move a socket to another thread, where it is wrapped again).
    package consuming func release() -> Int32 {
        let descriptor = raw
        discard self
        return descriptor
    }

    deinit {
        if raw >= 0 { Syscall.close(raw) }
    }
}

package enum ListeningSocket {
    /// Binds `address` once without SO_REUSEPORT and lets it go again, returning the address with
    /// the port the kernel chose (for port 0).
    ///
    /// SO_REUSEPORT would let a second server of the same user bind the same port silently and
    /// take half of its connections; a plain bind fails with EADDRINUSE when anyone holds the port.
    package static func reserve(_ address: SocketAddress) throws(SystemError) -> SocketAddress {
        var fd = FileDescriptor(try Syscall.socket(domain: address.family, type: Int32(SOCK_STREAM.rawValue)))
        defer { fd.close() }
        try Syscall.setOption(fd.raw, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
        if address.family == AF_INET6 {
            try Syscall.setOption(fd.raw, level: Int32(IPPROTO_IPV6), name: IPV6_V6ONLY, value: 1)
        }
        try Syscall.bind(fd.raw, address)
        return try Syscall.localAddress(fd.raw)
    }

    /// Opens a non-blocking listening TCP socket on `address` with SO_REUSEADDR and SO_REUSEPORT,
    /// so each event loop can have its own socket on the same port and the kernel spreads
    /// connections across them (no shared acceptor, no cross-thread hop per connection).
    package static func open(on address: SocketAddress, backlog: Int32 = 1024) throws(SystemError) -> FileDescriptor {
        var fd = FileDescriptor(try Syscall.socket(domain: address.family, type: Int32(SOCK_STREAM.rawValue)))
        do {
            try Syscall.setOption(fd.raw, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
            try Syscall.setOption(fd.raw, level: SOL_SOCKET, name: SO_REUSEPORT, value: 1)
            if address.family == AF_INET6 {
                // `[::]:port` means IPv6 only; `0.0.0.0:port` is the way to ask for IPv4.
                try Syscall.setOption(fd.raw, level: Int32(IPPROTO_IPV6), name: IPV6_V6ONLY, value: 1)
            }
            try Syscall.bind(fd.raw, address)
            try Syscall.listen(fd.raw, backlog: backlog)
        } catch {
            fd.close()
            throw error
        }
        return fd
    }
}
