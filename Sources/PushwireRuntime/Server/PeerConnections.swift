import Synchronization

/// Open connections per peer host, across every loop: what `maxConnectionsPerPeer` is checked
/// against when a connection is accepted.
///
/// A host is an IPv4 address, or the /64 prefix of an IPv6 address (a host is usually given a
/// whole /64, so counting full IPv6 addresses would let one host open a connection per address;
/// an IPv4-mapped IPv6 address counts as its IPv4 address).
final class PeerConnections: Sendable {
    /// The part of a peer's address that names its host.
    struct Host: Hashable, Sendable {
        let high: UInt64
        let low: UInt64
    }

    private let counts = Mutex<[Host: Int]>([:])

    /// The host part of `peer`.
    static func host(of peer: SocketAddress) -> Host {
        switch peer.storage {
        case .v4(let address, _):
            return Host(high: 4, low: UInt64(address))
        case .v6(let bytes, _, _):
            var prefix: UInt64 = 0
            for byte in bytes.prefix(8) { prefix = prefix << 8 | UInt64(byte) }
            // ::ffff:a.b.c.d — an IPv4 peer reaching a dual-stack socket.
            if bytes.count == 16, prefix == 0, bytes[8..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                let v4 = bytes[12..<16].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                // Stored like `.v4`'s address: network byte order.
                return Host(high: 4, low: UInt64(v4.bigEndian))
            }
            return Host(high: 6, low: prefix)
        case .unknown:
            return Host(high: 0, low: 0)
        }
    }

    /// Counts a new connection from `host` unless that would pass `limit`; returns whether it
    /// was counted.
    func admit(_ host: Host, limit: Int) -> Bool {
        counts.withLock { counts in
            let current = counts[host, default: 0]
            guard current < limit else { return false }
            counts[host] = current + 1
            return true
        }
    }

    /// Forgets a connection counted by `admit`.
    func release(_ host: Host) {
        counts.withLock { counts in
            guard let current = counts[host] else { return }
            if current <= 1 { counts[host] = nil } else { counts[host] = current - 1 }
        }
    }

    /// Connections counted for `host`, for tests.
    func count(_ host: Host) -> Int {
        counts.withLock { $0[host, default: 0] }
    }
}
