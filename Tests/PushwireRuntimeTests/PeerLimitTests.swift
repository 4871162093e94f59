#if canImport(Glibc)
import Glibc
#endif
import PushwireWire
import XCTest
@testable import PushwireRuntime

/// Issue 16 item 9: idle connections from one host must not hold every connection slot.
final class PeerLimitTests: XCTestCase {
    func testConnectionsPerPeerAreLimitedAndOtherPeersStillConnect() throws {
        let (server, address) = try startTestServer {
            $0.maxConnectionsPerPeer = 3
            $0.maxConnections = 10
        }
        defer { stop(server) }
        // Three idle connections that never send a call.
        let idle = try (0..<3).map { _ in try TestClient(address) }
        let extra = try TestClient(address, handshake: false)
        try? extra.sendRaw(WireProtocol.preface)
        XCTAssertEqual(try extra.readRawUntilClosed(), [], "the fourth connection from 127.0.0.1 is closed without an answer")
        // Another loopback host is its own peer.
        let elsewhere = try TestClient(address, source: try SocketAddress(parsing: "127.0.0.2:0"))
        XCTAssertEqual(try elsewhere.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
        for client in idle {
            XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
        }
        // A closed connection gives its slot back.
        idle[0].close()
        XCTAssertEqual(try TestClient.callOnceAdmitted(address, Methods.Health.check.path, TestMethods.request("")).code, .ok)
    }

    func testPeerHostIsTheIPv4AddressOrTheIPv6Prefix() throws {
        func host(_ text: String) throws -> PeerConnections.Host { PeerConnections.host(of: try SocketAddress(parsing: text)) }
        XCTAssertEqual(try host("127.0.0.1:1"), try host("127.0.0.1:2"))
        XCTAssertNotEqual(try host("127.0.0.1:1"), try host("127.0.0.2:1"))
        XCTAssertEqual(try host("[2001:db8:1:2::1]:1"), try host("[2001:db8:1:2:ffff::9]:2"), "one /64")
        XCTAssertNotEqual(try host("[2001:db8:1:2::1]:1"), try host("[2001:db8:1:3::1]:1"))
        XCTAssertEqual(try host("[::ffff:127.0.0.1]:1"), try host("127.0.0.1:9"), "an IPv4-mapped address is its IPv4 host")
        XCTAssertNotEqual(try host("[::1]:1"), try host("127.0.0.1:1"))
    }
}
