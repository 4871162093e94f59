#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PushwireWire
import Synchronization
import XCTest
@testable import PushwireRuntime

/// The HTTP door over TLS (the RPC port's certificate, ALPN `http/1.1`): Connect calls with
/// keep-alive and pipelining, /metrics, a plaintext client and a stalled handshake dropped, the
/// certificate reloaded under load, and client certificates for the services that need one.
final class HTTPDoorTLSTests: XCTestCase {
    /// The test server with TLS on both doors and its HTTP door on 127.0.0.1:0.
    func startHTTPSServer(_ context: TLSServerContext? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in })
        throws -> (Server, SocketAddress) {
        let tls = try context ?? TestTLS.serverContext()
        let (server, _) = try startTestServer { configuration in
            configuration.tls = tls
            configuration.http = HTTPConfiguration(listen: SocketAddress.loopbackFallback.withPort(0))
            configure(&configuration)
        }
        return (server, try XCTUnwrap(server.httpAddress))
    }

    func testConnectCallsKeepAliveAndPipeliningOverTLS() throws {
        let (server, address) = try startHTTPSServer()
        defer { stop(server) }
        let client = try HTTPTestClient(address, tls: HTTPTestClient.https)
        XCTAssertEqual(client.socket.tlsVersion, "TLSv1.3")
        XCTAssertEqual(client.socket.selectedALPN, "http/1.1", "h2 is not served")
        // Keep-alive: three calls on one connection.
        for _ in 0..<3 {
            let ok = try client.post("/pushwire.v1.Health/Check", json: "{}")
            XCTAssertEqual(ok.status, 200)
            XCTAssertEqual(ok.text, #"{"status":"SERVING_STATUS_SERVING"}"#)
        }
        // Pipelining: three requests in one write, answered in order, the slow one first.
        let body = Array(#"{"service":"50"}"#.utf8)
        try client.send(HTTPTestClient.request("POST", TestMethods.sleep.path, headers: [("Content-Type", "application/json")], body: body)
            + HTTPTestClient.request("POST", TestMethods.fail.path, headers: [("Content-Type", "application/json")], body: Array(#"{"service":"x"}"#.utf8))
            + HTTPTestClient.request("GET", "/healthz"))
        XCTAssertEqual(try client.readResponse().status, 200)
        XCTAssertEqual(try client.readResponse().text, #"{"code":"not_found","message":"no such thing: x"}"#)
        XCTAssertEqual(try client.readResponse().status, 200)
        // A request of 200 KB arrives in many TLS records, all in the socket before the first is
        // read: the door reads on to the last one (a short read does not mean an empty socket).
        let long = String(repeating: "x", count: 200_000)
        let echoed = try client.post(TestMethods.fail.path, json: #"{"service":"\#(long)"}"#)
        XCTAssertEqual(echoed.status, 404)
        XCTAssertTrue(echoed.text.hasSuffix(long + #""}"#), "\(echoed.text.prefix(100))")
        // An answer of 1 MiB crosses many TLS records.
        try client.send(HTTPTestClient.request("POST", TestMethods.big.path, headers: [("Content-Type", "application/proto")],
                                               body: TestMethods.request("1024")))
        let big = try client.readResponse()
        XCTAssertEqual(big.status, 200)
        XCTAssertGreaterThan(big.body.count, 1024 * 1024)
        try client.send(HTTPTestClient.request("GET", "/metrics"))
        let metrics = try client.readResponse()
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.text.contains("pushwire_http_requests_total"), metrics.text)
        // A client that offers no ALPN is served too (Python's ssl, curl --no-alpn).
        let noALPN = try HTTPTestClient(address, tls: TestTLS.Client(alpn: []))
        XCTAssertNil(noALPN.socket.selectedALPN)
        XCTAssertEqual(try noALPN.post("/pushwire.v1.Health/Check", json: "{}").status, 200)
    }

    func testOnlyOtherProtocolsAreRefusedOnEitherDoor() throws {
        let (server, address) = try startHTTPSServer()
        defer { stop(server) }
        // The HTTP door speaks http/1.1, not the RPC protocol or HTTP/2 alone.
        for offered in [["pwire/1"], ["h2"]] {
            XCTAssertThrowsError(try HTTPTestClient(address, tls: TestTLS.Client(alpn: offered)), "\(offered)") { error in
                XCTAssertTrue("\(error)".contains("no application protocol"), "\(error)")
            }
        }
        // And the RPC port still speaks pwire/1 only.
        let rpc = try XCTUnwrap(server.localAddress)
        XCTAssertThrowsError(try TestClient(rpc, tls: TestTLS.Client(alpn: ["http/1.1"])))
        XCTAssertEqual(try TestClient(rpc, tls: TestTLS.Client()).call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
    }

    func testAPlaintextClientOnTheTLSDoorGetsNoAnswerInClearText() throws {
        let (server, address) = try startHTTPSServer()
        defer { stop(server) }
        let plain = try TestClient(address, handshake: false)
        try plain.sendRaw(Array("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
        let answer = try plain.readRawUntilClosed(timeout: 5)
        XCTAssertFalse(String(decoding: answer, as: UTF8.self).contains("HTTP/1.1"), "answered in clear text: \(answer)")
        XCTAssertEqual(try HTTPTestClient(address, tls: HTTPTestClient.https).post("/pushwire.v1.Health/Check", json: "{}").status, 200)
    }

    func testAStalledHandshakeIsDroppedAtTheHandshakeTimeout() throws {
        let context = try TestTLS.serverContext(handshakeTimeout: .milliseconds(500))
        let (server, address) = try startHTTPSServer(context) { configuration in
            configuration.http?.requestTimeout = .seconds(30)
            configuration.http?.idleTimeout = .seconds(30)
        }
        defer { stop(server) }
        var good: HTTPTestClient?
        let elapsed = try TestTLS.stalledHandshakesDropped(at: address) {
            let client = try HTTPTestClient(address, tls: HTTPTestClient.https)
            XCTAssertEqual(try client.post("/pushwire.v1.Health/Check", json: "{}").status, 200)
            good = client
        }
        XCTAssertGreaterThanOrEqual(elapsed, 0.4)
        XCTAssertLessThan(elapsed, 2.5, "dropped at the handshake timeout, not the 30 s idle or request timeout")
        XCTAssertEqual(try XCTUnwrap(good).post("/pushwire.v1.Health/Check", json: "{}").status, 200)
    }

    func testReloadUnderLoadLosesNoRequests() throws {
        let pair = try TestTLS.LivePair("server")
        let context = try TLSServerContext(certificateFile: pair.certificateFile, keyFile: pair.keyFile)
        let (server, address) = try startHTTPSServer(context)
        defer { stop(server) }

        // Three keep-alive clients made before the reload, and one that reconnects for every
        // request (new handshakes before, during and after it).
        let clients = try (0..<3).map { _ in try HTTPTestClient(address, tls: HTTPTestClient.https) }
        let load = try TestTLS.callsAround({
            try pair.install("wrong-host")
            try context.reload()
        }, threads: 4) { index in
            // Either pair will do for the reconnecting one.
            let current = try index < 3 ? clients[index] : HTTPTestClient(address, tls: TestTLS.Client(alpn: ["http/1.1"], verify: false))
            let answer = try current.post("/pushwire.v1.Health/Check", json: "{}")
            guard answer.status == 200 else { throw TestClient.Failure(description: "\(answer.status) \(answer.text)") }
        }
        XCTAssertEqual(load.failures, [])
        XCTAssertGreaterThan(load.answered, 20)
        // New handshakes on either door get the new pair (it verifies for its own name only).
        let renewed = TestTLS.Client(alpn: ["http/1.1"], serverName: "wrong-host.invalid")
        XCTAssertEqual(try HTTPTestClient(address, tls: renewed).post("/pushwire.v1.Health/Check", json: "{}").status, 200)
        XCTAssertThrowsError(try HTTPTestClient(address, tls: HTTPTestClient.https))
    }

    func testClientCertificateOpensItsServicesAndThePlaintextListenerNever() throws {
        let context = try TestTLS.serverContext(clientCA: true)
        let (server, address) = try startHTTPSServer(context) { configuration in
            configuration.clientCertificateServices = ["pushwire.test.Test"]
            configuration.http?.plaintextListen = SocketAddress.loopbackFallback.withPort(0)
        }
        defer { stop(server) }
        let sleep = #"{"service":"0"}"#
        let withCertificate = try HTTPTestClient(address, tls: TestTLS.Client(alpn: ["http/1.1"], clientCertificate: true))
        XCTAssertEqual(try withCertificate.post(TestMethods.sleep.path, json: sleep).status, 200)
        let without = try HTTPTestClient(address, tls: HTTPTestClient.https)
        let refused = try without.post(TestMethods.sleep.path, json: sleep)
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.text, #"{"code":"permission_denied","message":"pushwire.test.Test needs a TLS client certificate signed by the server's client CA"}"#)
        XCTAssertEqual(try without.post("/pushwire.v1.Health/Check", json: "{}").status, 200, "other services need none")
        // The clear-text listener beside the TLS one serves the same door, without certificates.
        let plaintextAddress = try XCTUnwrap(server.httpPlaintextAddress)
        XCTAssertNotEqual(plaintextAddress.port, address.port)
        let plaintext = try HTTPTestClient(plaintextAddress)
        XCTAssertEqual(try plaintext.post("/pushwire.v1.Health/Check", json: "{}").status, 200)
        XCTAssertEqual(try plaintext.post(TestMethods.sleep.path, json: sleep).status, 403)
    }
}

/// Each client is used by one thread at a time (made on one, used on another).
extension HTTPTestClient: @unchecked Sendable {}
