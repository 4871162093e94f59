#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PushwireWire
import Synchronization
import XCTest
@testable import PushwireRuntime

/// The HTTP door over real sockets: Connect unary calls (JSON and binary), their errors and
/// HTTP statuses, keep-alive and pipelining, the limits, /healthz and /metrics.
final class HTTPDoorTests: XCTestCase {
    func testConnectJSONCallAndErrorsWithConnectStatuses() throws {
        let (server, address) = try startHTTPTestServer()
        defer { stop(server) }
        let client = try HTTPTestClient(address)
        let ok = try client.post("/pushwire.v1.Health/Check", json: "{}")
        XCTAssertEqual(ok.status, 200)
        XCTAssertEqual(ok.header("Content-Type"), "application/json")
        XCTAssertEqual(ok.text, #"{"status":"SERVING_STATUS_SERVING"}"#)
        // A handler's error: Connect's code name and HTTP status (NOT_FOUND → 404), same connection.
        let failed = try client.post(TestMethods.fail.path, json: #"{"service":"x"}"#)
        XCTAssertEqual(failed.status, 404)
        XCTAssertEqual(failed.text, #"{"code":"not_found","message":"no such thing: x"}"#)
        // JSON that does not fit the request message.
        let unknownField = try client.post("/pushwire.v1.Health/Check", json: #"{"servce":"x"}"#)
        XCTAssertEqual(unknownField.status, 400)
        XCTAssertTrue(unknownField.text.contains(#""code":"invalid_argument""#), unknownField.text)
        XCTAssertTrue(unknownField.text.contains("servce"), unknownField.text)
        XCTAssertEqual(try client.post("/pushwire.v1.Health/Check", json: "{").status, 400)
        // Unknown method, wrong verb, wrong content type.
        let unknown = try client.post("/pushwire.v1.Nope/Nothing", json: "{}")
        XCTAssertEqual(unknown.status, 404)
        XCTAssertTrue(unknown.text.contains(#""code":"unimplemented""#))
        try client.send(HTTPTestClient.request("GET", "/pushwire.v1.Health/Check"))
        let get = try client.readResponse()
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(get.header("Allow"), "POST")
        try client.send(HTTPTestClient.request("POST", "/pushwire.v1.Health/Check", headers: [("Content-Type", "text/plain")], body: Array("{}".utf8)))
        XCTAssertEqual(try client.readResponse().status, 415)
        // Still serving on the same connection after every error.
        XCTAssertEqual(try client.post("/pushwire.v1.Health/Check", json: "{}").status, 200)
    }

    func testExpectContinueGetsAnInterimAnswerBeforeTheBody() throws {
        let (server, address) = try startHTTPTestServer()
        defer { stop(server) }
        let client = try HTTPTestClient(address)
        // curl sends this above 1 KiB and waits a second for `100 Continue` before the body.
        try client.send("POST /pushwire.v1.Health/Check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertEqual(try client.readResponse(timeout: 0.5).status, 100)
        try client.send("{}")
        XCTAssertEqual(try client.readResponse().status, 200)
    }

    func testConnectBinaryCall() throws {
        let (server, address) = try startHTTPTestServer()
        defer { stop(server) }
        let client = try HTTPTestClient(address)
        try client.send(HTTPTestClient.request("POST", TestMethods.big.path, headers: [("Content-Type", "application/proto")], body: TestMethods.request("2")))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/proto")
        let decoded = try Request(decoding: response.body)
        XCTAssertEqual(decoded.message.count, 2048)
    }

    func testConnectTimeoutIsTheDeadline() throws {
        let (server, address) = try startHTTPTestServer()
        defer { stop(server) }
        let client = try HTTPTestClient(address)
        let started = TestClient.now()
        let late = try client.post(TestMethods.sleep.path, json: #"{"service":"2000"}"#, headers: [("Connect-Timeout-Ms", "100")])
        XCTAssertEqual(late.status, 504)
        XCTAssertEqual(late.text, #"{"code":"deadline_exceeded","message":"deadline of 100 ms exceeded"}"#)
        XCTAssertLessThan(TestClient.now() - started, 1.5)
        XCTAssertEqual(try client.post(TestMethods.sleep.path, json: #"{"service":"10"}"#, headers: [("Connect-Timeout-Ms", "2000")]).status, 200)
        XCTAssertEqual(try client.post(TestMethods.sleep.path, json: "{}", headers: [("Connect-Timeout-Ms", "soon")]).status, 400)
    }

    func testPipelinedRequestsAreAnsweredInOrder() throws {
        let (server, address) = try startHTTPTestServer()
        defer { stop(server) }
        let client = try HTTPTestClient(address)
        // A slow call first: the fast ones behind it must wait for it, in order.
        var batch = HTTPTestClient.request("POST", TestMethods.sleep.path, headers: [("Content-Type", "application/json")], body: Array(#"{"service":"200"}"#.utf8))
        for index in 0..<20 {
            batch += HTTPTestClient.request("POST", TestMethods.fail.path, headers: [("Content-Type", "application/json")], body: Array(#"{"service":"\#(index)"}"#.utf8))
        }
        batch += HTTPTestClient.request("GET", "/healthz", headers: [("Connection", "close")])
        try client.send(batch)
        XCTAssertEqual(try client.readResponse().status, 200)
        for index in 0..<20 {
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 404)
            XCTAssertTrue(response.text.contains("no such thing: \(index)\""), response.text)
        }
        let last = try client.readResponse()
        XCTAssertEqual(last.status, 200)
        XCTAssertEqual(last.header("Connection"), "close")
        XCTAssertTrue(client.closesWithin(2))
    }

    func testOversizedBodyIsRefusedFromItsContentLength() throws {
        let (server, address) = try startHTTPTestServer { $0.maxBodyBytes = 1024 }
        defer { stop(server) }
        let client = try HTTPTestClient(address)
        // Only the head is sent: the refusal must not wait for a body it will never read.
        try client.send("POST /pushwire.v1.Health/Check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertTrue(client.closesWithin(3))
        // A chunked body over the limit, counted as it arrives.
        let chunked = try HTTPTestClient(address)
        try chunked.send("POST /pushwire.v1.Health/Check HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + String(repeating: "x", count: 2048) + "\r\n")
        XCTAssertEqual(try chunked.readResponse().status, 413)
        // Others are unaffected.
        XCTAssertEqual(try HTTPTestClient(address).post("/pushwire.v1.Health/Check", json: "{}").status, 200)
    }

    func testHeaderFloodAndTooManyHeaders() throws {
        let (server, address) = try startHTTPTestServer { $0.maxHeaderBytes = 4096; $0.maxHeaderCount = 20 }
        defer { stop(server) }
        let big = try HTTPTestClient(address)
        try big.send("GET /healthz HTTP/1.1\r\nHost: t\r\nX-Flood: " + String(repeating: "a", count: 10_000) + "\r\n\r\n")
        XCTAssertEqual(try big.readResponse().status, 431)
        XCTAssertTrue(big.closesWithin(3))
        let many = try HTTPTestClient(address)
        try many.send("GET /healthz HTTP/1.1\r\nHost: t\r\n" + (0..<30).map { "X-H\($0): v\r\n" }.joined() + "\r\n")
        XCTAssertEqual(try many.readResponse().status, 431)
        let garbage = try HTTPTestClient(address)
        try garbage.send("\u{1}\u{2}NOT HTTP\r\n\r\n")
        XCTAssertEqual(try garbage.readResponse().status, 400)
        XCTAssertEqual(try HTTPTestClient(address).post("/pushwire.v1.Health/Check", json: "{}").status, 200)
    }

    func testSlowlorisGets408AndIdleKeepAliveIsClosed() throws {
        let (server, address) = try startHTTPTestServer { $0.requestTimeout = .milliseconds(400); $0.idleTimeout = .milliseconds(600) }
        defer { stop(server) }
        let slow = try HTTPTestClient(address)
        let started = TestClient.now()
        try slow.send("GET /healthz HTTP/1.1\r\n")
        // Dripping header bytes does not extend the request's time.
        for _ in 0..<3 {
            usleep(100_000)
            try? slow.send("X-Drip: 1\r\n")
        }
        let response = try slow.readResponse(timeout: 3)
        XCTAssertEqual(response.status, 408)
        XCTAssertLessThan(TestClient.now() - started, 2)
        XCTAssertTrue(slow.closesWithin(3))
        // A keep-alive connection with nothing in progress is closed once idle.
        let idle = try HTTPTestClient(address)
        XCTAssertEqual(try idle.post("/pushwire.v1.Health/Check", json: "{}").status, 200)
        XCTAssertTrue(idle.closesWithin(3))
    }

    func testHealthzAndMetricsMoveWithCalls() throws {
        let (server, address) = try startHTTPTestServer()
        defer { stop(server) }
        let client = try HTTPTestClient(address)
        try client.send(HTTPTestClient.request("GET", "/healthz"))
        let health = try client.readResponse()
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.text, #"{"status":"serving","checks":{}}"#)
        for _ in 0..<3 { _ = try client.post(TestMethods.fail.path, json: "{}") }
        // The binary door's calls count too.
        XCTAssertEqual(try TestClient(server.localAddress!).call(TestMethods.fail.path, TestMethods.request("")).code, .notFound)
        try client.send(HTTPTestClient.request("GET", "/metrics"))
        let metrics = try client.readResponse()
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") ?? false)
        XCTAssertTrue(metrics.text.contains(#"pushwire_calls_total{method="/pushwire.test.Test/Fail",code="NOT_FOUND"} 4"#), metrics.text)
        XCTAssertTrue(metrics.text.contains(#"pushwire_call_duration_seconds_count{method="/pushwire.test.Test/Fail"} 4"#))
        // Timed from each request's arrival (the loop's wake-up, or the HTTP door's read): well under a second each.
        XCTAssertTrue(metrics.text.contains(#"pushwire_call_duration_seconds_bucket{method="/pushwire.test.Test/Fail",le="1"} 4"#), metrics.text)
        XCTAssertTrue(metrics.text.contains(#"pushwire_connections{door="http"} 1"#))
        XCTAssertTrue(metrics.text.contains(#"pushwire_http_requests_total{status="404"} 3"#))
        try PromtoolCheck.check(metrics.text)
    }

    /// One health state behind both doors: the check `/healthz` reports is the one Health/Check
    /// obeys, so the two turn together.
    func testHealthzIs503AndHealthCheckNotServingWhenACheckFails() throws {
        var configuration = ServerConfiguration(listen: try SocketAddress(parsing: "127.0.0.1:0"), threads: 1)
        configuration.http = HTTPConfiguration(listen: try SocketAddress(parsing: "127.0.0.1:0"))
        let server = Server(configuration: configuration, logger: Logger(label: "test", level: .warning))
        let full = Atomic<Bool>(true)
        server.addHealthCheck("store") {
            full.load(ordering: .relaxed) ? HealthReport(serving: false, state: "read-only: disk full") : HealthReport(serving: true, state: "open")
        }
        try server.start()
        defer { stop(server) }
        let client = try HTTPTestClient(try XCTUnwrap(server.httpAddress))
        let rpc = try TestClient(try XCTUnwrap(server.localAddress))
        func rpcStatus() throws -> ServingStatus {
            let result = try rpc.call(Methods.Health.check.path, TestMethods.request(""))
            XCTAssertEqual(result.code, .ok)
            return try HealthCheckResponse(decoding: result.body).status
        }
        try client.send(HTTPTestClient.request("GET", "/healthz"))
        let health = try client.readResponse()
        XCTAssertEqual(health.status, 503)
        XCTAssertEqual(health.text, #"{"status":"not_serving","checks":{"store":{"serving":false,"state":"read-only: disk full"}}}"#)
        XCTAssertEqual(try rpcStatus(), .notServing)

        full.store(false, ordering: .relaxed)
        try client.send(HTTPTestClient.request("GET", "/healthz"))
        XCTAssertEqual(try client.readResponse().status, 200)
        XCTAssertEqual(try rpcStatus(), .serving)
    }

    func testShutdownClosesIdleConnectionsAndTheListener() throws {
        let (server, address) = try startHTTPTestServer()
        defer { stop(server) }
        // A slow call keeps the binary door's loop draining for a while.
        let rpc = try TestClient(server.localAddress!)
        try rpc.start(TestMethods.sleep.path, TestMethods.request("1500"))
        let client = try HTTPTestClient(address)
        XCTAssertEqual(try client.post("/pushwire.v1.Health/Check", json: "{}").status, 200)
        server.beginShutdown()
        // The open keep-alive one was idle, so it is closed (its loop closed its listener first);
        // then a new connection is refused on every loop's listener.
        XCTAssertTrue(client.closesWithin(2))
        XCTAssertTrue(waitUntil(timeout: 2) { (try? HTTPTestClient(address).post("/healthz", json: "")) == nil },
                      "a new connection was still answered")
        XCTAssertThrowsError(try HTTPTestClient(address).post("/healthz", json: ""))
    }
}

/// Runs Debian's `promtool check metrics` on an exposition (package prometheus).
enum PromtoolCheck {
    static func check(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("promtool is not installed (Debian package prometheus; Scripts/install-deps --test)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: promtool)
        process.arguments = ["check", "metrics"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "promtool check metrics: \(report)", file: file, line: line)
    }
}
