import XCTest
import PushwireWire
@testable import PushwireRuntime

/// Accepted connections are spread evenly over the event loops, whichever loop's socket the
/// kernel handed them to.
final class ConnectionBalancingTests: XCTestCase {
    func testConnectionsAreSpreadEvenlyOverTheLoops() throws {
        let (server, address) = try startTestServer { $0.threads = 2 }
        defer { stop(server) }
        var clients: [TestClient] = []
        for _ in 0..<8 {
            // The handshake has completed once Settings arrive, so each connection is on its loop
            // before the next one is accepted.
            let client = try TestClient(address)
            XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
            clients.append(client)
        }
        XCTAssertEqual(server.connectionsPerLoop, [4, 4])

        for client in clients.prefix(4) { client.close() }
        try waitUntil { server.connectionCount == 4 }
        XCTAssertEqual(server.connectionsPerLoop.reduce(0, +), 4)
        for _ in 0..<4 {
            let client = try TestClient(address)
            XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
            clients.append(client)
        }
        XCTAssertEqual(server.connectionsPerLoop, [4, 4])
    }

    /// The HTTP door's loops balance the same way (one listener type for both doors): it used to
    /// leave each connection on the loop whose socket the kernel picked.
    func testHTTPConnectionsAreSpreadEvenlyOverTheLoops() throws {
        let (server, _) = try startTestServer {
            $0.threads = 2
            $0.http = HTTPConfiguration(listen: SocketAddress.loopbackFallback.withPort(0))
        }
        defer { stop(server) }
        let address = try XCTUnwrap(server.httpAddress)
        var clients: [HTTPTestClient] = []
        for _ in 0..<8 {
            // Answered, so each connection is on its loop before the next one is accepted.
            let client = try HTTPTestClient(address)
            XCTAssertEqual(try client.post("/pushwire.v1.Health/Check", json: "{}").status, 200)
            clients.append(client)
        }
        XCTAssertEqual(server.httpConnectionsPerLoop, [4, 4])
        clients.removeFirst(4)
        try waitUntil { server.httpConnectionsPerLoop.reduce(0, +) == 4 }
        for _ in 0..<4 {
            let client = try HTTPTestClient(address)
            XCTAssertEqual(try client.post("/pushwire.v1.Health/Check", json: "{}").status, 200)
            clients.append(client)
        }
        XCTAssertEqual(server.httpConnectionsPerLoop, [4, 4])
    }

    private func waitUntil(timeout: Double = 5, _ condition: () -> Bool) throws {
        let deadline = TestClient.now() + timeout
        while !condition() {
            if TestClient.now() > deadline { throw TestClient.Failure(description: "condition not met in \(timeout) s") }
            usleep(5_000)
        }
    }
}
