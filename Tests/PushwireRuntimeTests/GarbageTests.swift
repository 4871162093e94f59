#if canImport(Glibc)
import Glibc
#endif
import PushwireWire
import XCTest
@testable import PushwireRuntime

final class GarbageTests: XCTestCase {
    var server: Server!
    var address: SocketAddress!
    /// A well-behaved client kept open across the garbage, to show it is unaffected.
    var bystander: TestClient!

    override func setUpWithError() throws {
        (server, address) = try startTestServer()
        bystander = try TestClient(address)
    }

    override func tearDownWithError() throws {
        XCTAssertEqual(try bystander.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
        bystander = nil
        stop(server)
    }

    func testHTTPRequestIsClosedWithoutAnswer() throws {
        let client = try TestClient(address, handshake: false)
        try client.sendRaw(Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        XCTAssertEqual(try client.readRawUntilClosed(), [])
    }

    func testWrongPrefaceVersionIsClosed() throws {
        let client = try TestClient(address, handshake: false)
        try client.sendRaw(Array("PWIRE/2\n".utf8))
        XCTAssertEqual(try client.readRawUntilClosed(), [])
    }

    func testRandomBytesAfterThePreface() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let client = try TestClient(address)
            let bytes = (0..<Int.random(in: 1...4096, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try? client.sendRaw(bytes)
            client.close()
        }
        // Random bytes whose length prefix is small enough decode as garbage: GoAway, then close.
        let client = try TestClient(address)
        try client.sendRaw([0, 0, 0, 6, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        let frames = try client.readUntilClosed()
        guard case .goAway(let goAway)? = frames.last?.kind else { return XCTFail("expected a GoAway, got \(frames)") }
        XCTAssertEqual(goAway.status?.code, StatusCode.invalidArgument.rawValue)
    }

    func testTruncatedFrameThenClose() throws {
        let client = try TestClient(address)
        var bytes: [UInt8] = []
        Frame.request(callID: 1, method: Methods.Health.check.path, message: []).encode(appendingTo: &bytes, lengthPrefixed: true)
        try client.sendRaw(Array(bytes.prefix(bytes.count - 3)))
        client.close()
        // The server dropped the half frame and serves on: a fresh connection's second call is
        // answered in a round after the one that saw the close.
        let next = try TestClient(address)
        for _ in 0..<2 { XCTAssertEqual(try next.call(Methods.Health.check.path, TestMethods.request("")).code, .ok) }
    }

    func testFourGiBLengthPrefix() throws {
        let client = try TestClient(address)
        try client.sendRaw([0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3])
        let frames = try client.readUntilClosed()
        guard case .goAway(let goAway)? = frames.last?.kind else { return XCTFail("expected a GoAway, got \(frames)") }
        XCTAssertEqual(goAway.status?.code, StatusCode.resourceExhausted.rawValue)
    }

    func testFrameWithNoKind() throws {
        let client = try TestClient(address)
        try client.sendRaw([0, 0, 0, 2, 0x08, 0x05])  // Frame { call_id: 5 }, no kind
        let frames = try client.readUntilClosed()
        guard case .goAway(let goAway)? = frames.last?.kind else { return XCTFail("expected a GoAway, got \(frames)") }
        XCTAssertEqual(goAway.status?.code, StatusCode.invalidArgument.rawValue)
    }

    func testServerOnlyFrameKindsFromAClientAreIgnored() throws {
        let client = try TestClient(address)
        try client.send(.response(callID: 3, status: .ok))
        try client.send(.goAway(lastCallID: 0, status: .ok, message: ""))
        try client.send(.pong(5))
        XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
    }

    func testHalfClosedClientGetsItsAnswersThenTheClose() throws {
        let client = try TestClient(address)
        try client.start(Methods.Health.check.path, TestMethods.request(""))
        try client.start(Methods.Health.check.path, TestMethods.request(""))
        shutdown(client.fd, Int32(SHUT_WR))
        let frames = try client.readUntilClosed(timeout: 3)
        XCTAssertEqual(frames.count, 2, "\(frames)")
    }
}
