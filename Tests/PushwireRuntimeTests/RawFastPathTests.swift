import Dispatch
import PushwireWire
import XCTest
@testable import PushwireRuntime

/// `Server.registerRawFastPath` over real sockets: the fast path answers, answers later, or
/// declines to the regular handler, and every check the regular path makes still holds.
final class RawFastPathTests: XCTestCase {
    var server: Server!
    var address: SocketAddress!

    /// The regular handler of `TestMethods.fail` answers NOT_FOUND, so an OK proves the fast path
    /// answered and a NOT_FOUND proves it declined. The fast path reads the request's `service`:
    /// "fast" answers now, "later" answers from another thread after 20 ms, "never" never does.
    override func setUpWithError() throws {
        var configuration = ServerConfiguration(listen: try SocketAddress(parsing: "127.0.0.1:0"), threads: 2)
        configuration.maxConcurrentCallsPerConnection = 4
        server = Server(configuration: configuration, logger: Logger(label: "test", level: .warning))
        server.register(TestMethods.fail) { _, request throws(RPCError) in
            throw RPCError(.notFound, "regular handler: \(request.service)")
        }
        server.registerRawFastPath(TestMethods.fail) { message in
            guard let request = try? HealthCheckRequest(decoding: message) else { return .decline }
            switch request.service {
            case "fast":
                return .response(Self.serving)
            case "later":
                return .later { complete in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { complete { .success(Self.serving) } }
                }
            case "later-error":
                return .later { complete in
                    DispatchQueue.global().async { complete { .failure(RPCError(.aborted, "store failed")) } }
                }
            case "never":
                return .later { _ in }
            default:
                return .decline
            }
        }
        address = try server.start()
    }

    override func tearDown() {
        stop(server)
    }

    static let serving: [UInt8] = {
        var response = HealthCheckResponse()
        response.status = .serving
        return response.encode()
    }()

    func testFastPathAnswersWithItsBytes() throws {
        let client = try TestClient(address)
        let result = try client.call(TestMethods.fail.path, TestMethods.request("fast"))
        XCTAssertEqual(result.code, .ok)
        XCTAssertEqual(try HealthCheckResponse(decoding: result.body).status, .serving)
    }

    func testDeclinedCallIsAnsweredByTheRegularHandler() throws {
        let client = try TestClient(address)
        let result = try client.call(TestMethods.fail.path, TestMethods.request("other"))
        XCTAssertEqual(result.code, .notFound)
        XCTAssertEqual(result.message, "regular handler: other")
    }

    func testUndecodableRequestGetsTheRegularPathsError() throws {
        let client = try TestClient(address)
        let result = try client.call(TestMethods.fail.path, [0x0A, 100, 0x41])
        XCTAssertEqual(result.code, .invalidArgument)
        XCTAssertTrue(result.message.contains("pushwire.v1.HealthCheckRequest"), result.message)
    }

    func testLaterAnswersFromAnotherThreadAndErrorsBecomeTheStatus() throws {
        let client = try TestClient(address)
        XCTAssertEqual(try client.call(TestMethods.fail.path, TestMethods.request("later")).code, .ok)
        let failed = try client.call(TestMethods.fail.path, TestMethods.request("later-error"))
        XCTAssertEqual(failed.code, .aborted)
        XCTAssertEqual(failed.message, "store failed")
    }

    func testLaterCallHasItsDeadlineAndCanBeCancelled() throws {
        let client = try TestClient(address)
        let expired = try client.call(TestMethods.fail.path, TestMethods.request("never"), timeoutMS: 50)
        XCTAssertEqual(expired.code, .deadlineExceeded)
        let id = try client.start(TestMethods.fail.path, TestMethods.request("never"))
        try client.send(.cancel(callID: id))
        let cancelled = try client.readResponse()
        XCTAssertEqual(cancelled.callID, id)
        XCTAssertEqual(cancelled.code, .cancelled)
    }

    func testCallChecksStillApply() throws {
        let client = try TestClient(address)
        // Call id 0 is reserved.
        try client.start(TestMethods.fail.path, TestMethods.request("fast"), callID: 0)
        XCTAssertEqual(try client.readResponse().code, .invalidArgument)
        // An id still in flight (a "never" call) cannot be reused.
        try client.start(TestMethods.fail.path, TestMethods.request("never"), callID: 7)
        try client.start(TestMethods.fail.path, TestMethods.request("fast"), callID: 7)
        let duplicate = try client.readResponse()
        XCTAssertEqual(duplicate.callID, 7)
        XCTAssertEqual(duplicate.code, .invalidArgument)
        XCTAssertTrue(duplicate.message.contains("already in flight"), duplicate.message)
        // The limit on calls in flight (4 here) counts fast-path calls waiting off the loop.
        for id in UInt32(8)...10 { try client.start(TestMethods.fail.path, TestMethods.request("never"), callID: id) }
        try client.start(TestMethods.fail.path, TestMethods.request("fast"), callID: 11)
        let refused = try client.readResponse()
        XCTAssertEqual(refused.callID, 11)
        XCTAssertEqual(refused.code, .resourceExhausted)
    }

    func testNonASCIIMetadataTakesTheRegularPath() throws {
        // The fast path ignores metadata, so it leaves any it cannot vouch for to the regular
        // decoder: here valid UTF-8 that the regular handler then answers.
        let client = try TestClient(address)
        try client.send(.request(callID: 1, method: TestMethods.fail.path, metadata: [Metadata(key: "x-name", value: "Zoë")],
                                 message: TestMethods.request("fast")))
        XCTAssertEqual(try client.readResponse().code, .notFound)
        try client.send(.request(callID: 2, method: TestMethods.fail.path, metadata: [Metadata(key: "x-name", value: "Zoe")],
                                 message: TestMethods.request("fast")))
        XCTAssertEqual(try client.readResponse().code, .ok)
    }

    func testManyPipelinedCallsAreAllAnswered() throws {
        let client = try TestClient(address)
        var bytes: [UInt8] = []
        for id in UInt32(1)...3000 {
            Frame.request(callID: id, method: TestMethods.fail.path, message: TestMethods.request(id % 3 == 0 ? "other" : "fast"))
                .encode(appendingTo: &bytes, lengthPrefixed: true)
        }
        try client.sendRaw(bytes)
        for id in UInt32(1)...3000 {
            let response = try client.readResponse()
            XCTAssertEqual(response.callID, id)
            XCTAssertEqual(response.code, id % 3 == 0 ? .notFound : .ok)
        }
    }
}
