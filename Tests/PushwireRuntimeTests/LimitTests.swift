#if canImport(Glibc)
import Glibc
#endif
import PushwireWire
import XCTest
@testable import PushwireRuntime

final class LimitTests: XCTestCase {
    /// The GoAway among `frames`, if any.
    func goAway(in frames: [Frame]) -> GoAway? {
        for frame in frames { if case .goAway(let goAway)? = frame.kind { return goAway } }
        return nil
    }

    func testFrameAboveTheLimitGetsGoAwayAndClose() throws {
        let (server, address) = try startTestServer { $0.maxFrameSize = 1024 }
        defer { stop(server) }
        let client = try TestClient(address)
        XCTAssertEqual(client.settings?.maxFrameSize, 1024)
        try client.sendRaw([0, 0, 0x07, 0xD0] + [UInt8](repeating: 0x41, count: 100))  // announces 2000 bytes
        let frames = try client.readUntilClosed()
        let goAway = try XCTUnwrap(goAway(in: frames))
        XCTAssertEqual(goAway.status?.code, StatusCode.resourceExhausted.rawValue)
        XCTAssertEqual(goAway.status?.message, "frame of 2000 bytes exceeds the limit of 1024 bytes")
        // Another connection is unaffected.
        XCTAssertEqual(try TestClient(address).call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
    }

    func testMaxConcurrentCallsPerConnection() throws {
        let (server, address) = try startTestServer { $0.maxConcurrentCallsPerConnection = 4 }
        defer { stop(server) }
        let client = try TestClient(address)
        XCTAssertEqual(client.settings?.maxConcurrentCalls, 4)
        for _ in 0..<4 { try client.start(TestMethods.sleep.path, TestMethods.request("200")) }
        let extra = try client.start(TestMethods.sleep.path, TestMethods.request("0"))
        let first = try client.readResponse()
        XCTAssertEqual(first.callID, extra)
        XCTAssertEqual(first.code, .resourceExhausted)
        for _ in 0..<4 { XCTAssertEqual(try client.readResponse().code, .ok) }
        // With the calls done there is room again.
        XCTAssertEqual(try client.call(TestMethods.sleep.path, TestMethods.request("0")).code, .ok)
    }

    func testMaxConnectionsRefusesTheExtraOnly() throws {
        let (server, address) = try startTestServer { $0.maxConnections = 3 }
        defer { stop(server) }
        let clients = try (0..<3).map { _ in try TestClient(address) }
        let extra = try TestClient(address, handshake: false)
        try? extra.sendRaw(WireProtocol.preface)
        XCTAssertEqual(try extra.readRawUntilClosed(), [], "the extra connection is closed without an answer")
        for client in clients {
            XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
        }
        // Once one closes, a new connection fits.
        clients[0].close()
        XCTAssertEqual(try TestClient.callOnceAdmitted(address, Methods.Health.check.path, TestMethods.request("")).code, .ok)
    }

    func testSilentPeerIsDroppedAfterThePrefaceTimeout() throws {
        let (server, address) = try startTestServer { $0.prefaceTimeout = .milliseconds(200) }
        defer { stop(server) }
        let client = try TestClient(address, handshake: false)
        let started = TestClient.now()
        XCTAssertEqual(try client.readRawUntilClosed(timeout: 3), [])
        XCTAssertLessThan(TestClient.now() - started, 1.5)
    }

    func testIdleConnectionGetsGracefulGoAway() throws {
        let (server, address) = try startTestServer { $0.idleTimeout = .milliseconds(200) }
        defer { stop(server) }
        let client = try TestClient(address)
        XCTAssertEqual(client.settings?.idleTimeoutMS, 200)
        let frames = try client.readUntilClosed(timeout: 3)
        XCTAssertEqual(goAway(in: frames)?.status?.code, StatusCode.ok.rawValue)
    }

    func testSlowDripPeerIsDropped() throws {
        let (server, address) = try startTestServer {
            $0.incompleteFrameTimeout = .milliseconds(400)
            $0.idleTimeout = .seconds(60)
        }
        defer { stop(server) }
        let client = try TestClient(address)
        var request: [UInt8] = []
        Frame.request(callID: 1, method: Methods.Health.check.path, message: []).encode(appendingTo: &request, lengthPrefixed: true)
        let started = TestClient.now()
        var closed = false
        // One byte every 100 ms: the frame never completes in time.
        for byte in request {
            if (try? client.sendRaw([byte])) == nil { closed = true; break }
            var poller = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 100) > 0 { closed = true; break }
        }
        XCTAssertTrue(closed, "the server should have given up on the dripping frame")
        XCTAssertLessThan(TestClient.now() - started, 2.0)
    }

    func testClientThatNeverReadsIsThrottledAndOthersAreServed() throws {
        let cap = 128 * 1024
        let (server, address) = try startTestServer { $0.maxOutputBufferBytes = cap }
        defer { stop(server) }
        let lazy = try TestClient(address, receiveBuffer: 16 * 1024)
        // Each request asks for a 64 KiB response; for 2 s the client sends and never reads.
        var pending: [UInt8] = []
        var callID: UInt32 = 1
        var sent = 0
        let started = TestClient.now()
        while TestClient.now() - started < 2 {
            if pending.isEmpty {
                Frame.request(callID: callID, method: TestMethods.big.path, message: TestMethods.request("64"))
                    .encode(appendingTo: &pending, lengthPrefixed: true)
                callID += 1
            }
            let taken = lazy.sendNonBlocking(pending)
            if taken == pending.count { sent += 1 }
            if taken == 0 { usleep(10_000) } else { pending.removeFirst(taken) }
        }
        // The server stopped reading it with at most the cap plus one response buffered.
        let statistics = server.backpressureStatistics
        XCTAssertGreaterThan(statistics.pauses, 0)
        XCTAssertLessThanOrEqual(statistics.peakBufferedBytes, cap + 66 * 1024)
        // Another client is served at once.
        let other = try TestClient(address)
        XCTAssertEqual(try other.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
        // Once the lazy client reads, its responses come: the server resumes reading it.
        for _ in 0..<min(sent, 40) {
            let response = try lazy.readResponse()
            XCTAssertEqual(response.code, .ok)
            XCTAssertEqual(response.body.count, 64 * 1024 + 4)
        }
    }
}
