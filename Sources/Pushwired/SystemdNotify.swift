#if canImport(Glibc)
import Glibc
#endif

/// systemd's readiness protocol without libsystemd: when `$NOTIFY_SOCKET` names a Unix datagram
/// socket (a path, or `@name` for the abstract namespace), `send` writes one datagram of
/// `KEY=value` lines to it, as `sd_notify(3)` does. A unit with `Type=notify` then counts the
/// service as started only once pushwired listens. Without `$NOTIFY_SOCKET`, nothing happens.
enum SystemdNotify {
    /// Sends `state` (e.g. `READY=1\nSTATUS=listening on 127.0.0.1:7355`); returns false when
    /// there is no socket to send to or the send failed (never fatal: readiness is advisory).
    @discardableResult
    static func send(_ state: String) -> Bool {
        guard let socketPath = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !socketPath.isEmpty else { return false }
        var bytes = Array(socketPath.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // the abstract namespace
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity, bytes.first == 0 || bytes.first == UInt8(ascii: "/") else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), target, length) }
            }
        }
        return sent == message.count
    }
}
