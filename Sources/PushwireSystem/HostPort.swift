/// Why an address string or a connection attempt failed before any socket call could.
public struct AddressError: Error, Sendable, CustomStringConvertible {
    /// What was wrong, for a person.
    public var message: String
    /// Creates the error with its message.
    public init(message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// A `host:port` or `[v6]:port` to resolve (unlike `SocketAddress`, the host may be a name).
public struct HostPort: Sendable, Equatable, CustomStringConvertible {
    /// The host name or address literal, without brackets; `127.0.0.1` when the string had none.
    public var host: String
    /// The port; 0 only when parsed with `allowsPortZero` (ask the kernel for one).
    public var port: UInt16

    /// Splits `host:port`, `[v6]:port` (or `:port`, meaning 127.0.0.1).
    /// - Parameter allowsPortZero: whether port 0 is acceptable (a listener), or an error (a peer).
    public init(parsing address: String, allowsPortZero: Bool = false) throws(AddressError) {
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
        guard let port = UInt16(portPart), port != 0 || allowsPortZero else {
            throw AddressError(message: "invalid address '\(address)': bad port '\(portPart)'")
        }
        if host.isEmpty { host = "127.0.0.1" }
        self.host = String(host)
        self.port = port
    }

    /// `host:port`, with brackets around an IPv6 host.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
