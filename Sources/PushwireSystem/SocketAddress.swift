#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address: what the server listens on and what a peer connects from.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// Why an address string did not parse.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, for a person.
        public var description: String
    }

    package enum Storage: Hashable {
        case v4(host: UInt32, port: UInt16)  // host in network byte order
        case v6(host: [UInt8], port: UInt16, scope: UInt32)
        case unknown
    }

    package let storage: Storage

    /// Parses `host:port` for IPv4 (`127.0.0.1:7355`, `0.0.0.0:0`), `[host]:port` for IPv6
    /// (`[::1]:7355`, `[::]:0`), or `localhost:port` (IPv4 loopback). Port 0 asks for an ephemeral port.
    /// - Throws: `ParseError` when the string is none of these.
    public init(parsing text: String) throws(ParseError) {
        let host: String
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw ParseError(description: "'\(text)': missing ']' after the IPv6 address")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw ParseError(description: "'\(text)': missing ':port'") }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw ParseError(description: "'\(text)': expected host:port, e.g. 127.0.0.1:7355 or [::1]:7355")
            }
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portText) else {
            throw ParseError(description: "'\(text)': the port must be a number from 0 to 65535")
        }
        let literal = host == "localhost" ? "127.0.0.1" : host
        var v4 = in_addr()
        var v6 = in6_addr()
        if !text.hasPrefix("["), inet_pton(AF_INET, literal, &v4) == 1 {
            storage = .v4(host: v4.s_addr, port: port)
        } else if text.hasPrefix("["), inet_pton(AF_INET6, literal, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            storage = .v6(host: bytes, port: port, scope: 0)
        } else {
            throw ParseError(description: "'\(text)': '\(host)' is not an IPv4 address or a bracketed IPv6 address")
        }
    }

    package init(storage raw: sockaddr_storage) {
        var raw = raw
        switch Int32(raw.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &raw) { $0.load(as: sockaddr_in.self) }
            storage = .v4(host: address.sin_addr.s_addr, port: UInt16(bigEndian: address.sin_port))
        case AF_INET6:
            var address = withUnsafeBytes(of: &raw) { $0.load(as: sockaddr_in6.self) }
            let bytes = withUnsafeBytes(of: &address.sin6_addr) { Array($0) }
            storage = .v6(host: bytes, port: UInt16(bigEndian: address.sin6_port), scope: address.sin6_scope_id)
        default:
            storage = .unknown
        }
    }

    /// The port; 0 for an address that asks for an ephemeral port.
    public var port: Int {
        switch storage {
        case .v4(_, let port), .v6(_, let port, _): Int(port)
        case .unknown: 0
        }
    }

    /// The same host with another port.
    public func withPort(_ port: Int) -> SocketAddress {
        switch storage {
        case .v4(let host, _): SocketAddress(storage: .v4(host: host, port: UInt16(truncatingIfNeeded: port)))
        case .v6(let host, _, let scope): SocketAddress(storage: .v6(host: host, port: UInt16(truncatingIfNeeded: port), scope: scope))
        case .unknown: self
        }
    }

    private init(storage: Storage) { self.storage = storage }

    /// Whether the host is a loopback address (127.0.0.0/8 or ::1): only this machine reaches it.
    public var isLoopback: Bool {
        switch storage {
        case .v4(let host, _): UInt32(bigEndian: host) >> 24 == 127
        case .v6(let host, _, _): host == [UInt8](repeating: 0, count: 15) + [1]
        case .unknown: false
        }
    }

    /// 127.0.0.1:7355, built without parsing.
    package static let loopbackFallback = SocketAddress(storage: .v4(host: UInt32(0x7F00_0001).bigEndian, port: 7355))

    package var family: Int32 {
        switch storage {
        case .v4: AF_INET
        case .v6: AF_INET6
        case .unknown: AF_UNSPEC
        }
    }

    /// Calls `body` with this address as a `sockaddr` pointer and its length.
    package func withSockAddr<R, E: Error>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> R) throws(E) -> R {
        var raw = sockaddr_storage()
        var length = socklen_t(0)
        switch storage {
        case .v4(let host, let port):
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = host
            withUnsafeBytes(of: &address) { source in
                withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: source) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        case .v6(let host, let port, let scope):
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_scope_id = scope
            withUnsafeMutableBytes(of: &address.sin6_addr) { target in
                host.withUnsafeBytes { target.copyMemory(from: $0) }
            }
            withUnsafeBytes(of: &address) { source in
                withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: source) }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        case .unknown:
            length = 0
        }
        return try withUnsafePointer(to: &raw) { pointer throws(E) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(E) in
                try body(address, length)
            }
        }
    }

    /// `127.0.0.1:7355` or `[::1]:7355`.
    public var description: String {
        switch storage {
        case .v4(var host, let port):
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &host, &text, socklen_t(text.count))
            return "\(Self.string(text)):\(port)"
        case .v6(let host, let port, _):
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            host.withUnsafeBytes { _ = inet_ntop(AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
            return "[\(Self.string(text))]:\(port)"
        case .unknown:
            return "unknown"
        }
    }

    private static func string(_ characters: [CChar]) -> String {
        let bytes = characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
