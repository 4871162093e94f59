import Dispatch
import PushwireWire
import Synchronization
import XCTest
@testable import PushwireRuntime

final class CallSemanticsTests: XCTestCase {
    var server: Server!
    var address: SocketAddress!

    override func setUpWithError() throws {
        (server, address) = try startTestServer()
    }

    override func tearDown() {
        stop(server)
    }

    func testHandshakeAnnouncesSettings() throws {
        let client = try TestClient(address)
        let settings = try XCTUnwrap(client.settings)
        XCTAssertEqual(settings.maxFrameSize, UInt32(WireProtocol.defaultMaxFrameSize))
        XCTAssertEqual(settings.maxConcurrentCalls, UInt32(WireProtocol.defaultMaxConcurrentCalls))
        XCTAssertEqual(settings.protocolVersion, 1)
        XCTAssertEqual(settings.serverName, "pushwired")
        XCTAssertEqual(settings.idleTimeoutMS, 300_000)
    }

    func testHealthCheck() throws {
        let client = try TestClient(address)
        for (service, expected) in [("", ServingStatus.serving), ("pushwire.v1.Health", .serving),
                                    ("pushwire.test.Test", .serving), ("pushwire.v1.Nope", .serviceUnknown)] {
            let result = try client.call(Methods.Health.check.path, TestMethods.request(service))
            XCTAssertEqual(result.code, .ok)
            XCTAssertEqual(try HealthCheckResponse(decoding: result.body).status, expected, service)
        }
    }

    func testReflectionListsEveryMethodSorted() throws {
        let client = try TestClient(address)
        let result = try client.call(Methods.Reflection.listMethods.path, ListMethodsRequest().encode())
        XCTAssertEqual(result.code, .ok)
        let methods = try ListMethodsResponse(decoding: result.body).methods
        let paths = methods.map(\.path)
        XCTAssertEqual(paths, paths.sorted())
        XCTAssertEqual(Set(paths), [
            "/pushwire.v1.Health/Check", "/pushwire.v1.Reflection/ListMethods", "/pushwire.test.Test/Sleep",
            "/pushwire.test.Test/BlockingSleep", "/pushwire.test.Test/Fail", "/pushwire.test.Test/Big",
            "/pushwire.test.Test/BlockingBig", "/pushwire.test.Test/CountedSleep", "/pushwire.test.Test/Heavy",
            "/pushwire.test.Test/AsyncBig", "/pushwire.test.Test/RawLaterBig",
        ])
        let health = try XCTUnwrap(methods.first { $0.path == "/pushwire.v1.Health/Check" })
        XCTAssertEqual(health.requestType, "pushwire.v1.HealthCheckRequest")
        XCTAssertEqual(health.responseType, "pushwire.v1.HealthCheckResponse")
    }

    func testPingIsAnsweredWithPong() throws {
        let client = try TestClient(address)
        try client.send(.ping(0xDEAD_BEEF))
        let frame = try XCTUnwrap(client.readFrame())
        guard case .pong(let pong)? = frame.kind else { return XCTFail("expected a pong, got \(frame)") }
        XCTAssertEqual(pong.payload, 0xDEAD_BEEF)
    }

    func testUnknownMethodIsUnimplemented() throws {
        let client = try TestClient(address)
        let result = try client.call("/pushwire.v1.Nope/Nothing")
        XCTAssertEqual(result.code, .unimplemented)
        XCTAssertTrue(result.message.contains("/pushwire.v1.Nope/Nothing"), result.message)
    }

    func testUndecodableRequestIsInvalidArgumentAndHarmsNothing() throws {
        let client = try TestClient(address)
        // Field 1 announced as 100 bytes long with 1 byte present.
        let result = try client.call(Methods.Health.check.path, [0x0A, 100, 0x41])
        XCTAssertEqual(result.code, .invalidArgument)
        XCTAssertTrue(result.message.contains("pushwire.v1.HealthCheckRequest"), result.message)
        XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
    }

    func testHandlerErrorBecomesTheStatus() throws {
        let client = try TestClient(address)
        let result = try client.call(TestMethods.fail.path, TestMethods.request("widget"))
        XCTAssertEqual(result.code, .notFound)
        XCTAssertEqual(result.message, "no such thing: widget")
    }

    func testDeadlineExceededAndLateResultDropped() throws {
        for method in [TestMethods.sleep.path, TestMethods.blockingSleep.path] {
            let client = try TestClient(address)
            let started = TestClient.now()
            let argument = "600 late \(method)"
            let id = try client.start(method, TestMethods.request(argument), timeoutMS: 50)
            let response = try client.readResponse()
            XCTAssertEqual(response.callID, id)
            XCTAssertEqual(response.code, .deadlineExceeded)
            XCTAssertLessThan(TestClient.now() - started, 0.5)
            // The handler finishes later; its result must not be sent. Once it has returned, a
            // second call of the same method (its result on the same path to the connection,
            // behind the late one) is the next frame.
            XCTAssertTrue(waitUntil(timeout: 10) { TestMethods.sleepFinished(argument) }, "the handler never returned")
            let probe = try client.start(method, TestMethods.request("0"))
            let next = try XCTUnwrap(client.readFrame())
            guard case .response? = next.kind, next.callID == probe else { return XCTFail("late result leaked: \(next)") }
        }
    }

    func testCancelAnswersCancelledOnce() throws {
        let client = try TestClient(address)
        let id = try client.start(TestMethods.sleep.path, TestMethods.request("300"))
        try client.send(.cancel(callID: id))
        let response = try client.readResponse()
        XCTAssertEqual(response.callID, id)
        XCTAssertEqual(response.code, .cancelled)
        // Cancelling again (or an unknown call) is ignored.
        try client.send(.cancel(callID: id))
        try client.send(.cancel(callID: 999))
        // A later call that outlasts the cancelled one's 300 ms (whose handler may never have
        // started) is the next frame: no second answer to the call and none to the cancels.
        let later = try client.start(TestMethods.sleep.path, TestMethods.request("400"))
        let next = try XCTUnwrap(client.readFrame())
        guard case .response? = next.kind, next.callID == later else { return XCTFail("expected only the later answer, got \(next)") }
    }

    func testDuplicateCallIDFailsOnlyThatRequest() throws {
        let client = try TestClient(address)
        try client.start(TestMethods.sleep.path, TestMethods.request("200"), callID: 7)
        try client.start(TestMethods.sleep.path, TestMethods.request("0"), callID: 7)
        let duplicate = try client.readResponse()
        XCTAssertEqual(duplicate.callID, 7)
        XCTAssertEqual(duplicate.code, .invalidArgument)
        XCTAssertEqual(duplicate.message, "call id 7 is already in flight")
        let original = try client.readResponse()
        XCTAssertEqual(original.callID, 7)
        XCTAssertEqual(original.code, .ok)
    }

    func testCallIDZeroFailsThatRequest() throws {
        let client = try TestClient(address)
        try client.start(Methods.Health.check.path, TestMethods.request(""), callID: 0)
        let response = try client.readResponse()
        XCTAssertEqual(response.callID, 0)
        XCTAssertEqual(response.code, .invalidArgument)
        XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
    }

    func testManyConnectionsManyCallsCompleteOutOfOrder() throws {
        let connections = 8
        let callsPerConnection = 40
        let outOfOrder = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let address: SocketAddress = self.address
        DispatchQueue.concurrentPerform(iterations: connections) { index in
            do {
                let client = try TestClient(address)
                var generator = SystemRandomNumberGenerator()
                var expected: Set<UInt32> = []
                for i in 0..<callsPerConnection {
                    let path = i % 3 == 0 ? Methods.Health.check.path : TestMethods.sleep.path
                    let delay = Int.random(in: 0...60, using: &generator)
                    expected.insert(try client.start(path, TestMethods.request(i % 3 == 0 ? "" : "\(delay)")))
                }
                var previous: UInt32 = 0
                for _ in 0..<callsPerConnection {
                    let response = try client.readResponse()
                    if response.code != .ok { failures.withLock { $0.append("\(index): \(response.code)") } }
                    if expected.remove(response.callID) == nil {
                        failures.withLock { $0.append("\(index): unexpected or repeated id \(response.callID)") }
                    }
                    if response.callID < previous { outOfOrder.add(1, ordering: .relaxed) }
                    previous = response.callID
                }
            } catch {
                failures.withLock { $0.append("\(index): \(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertGreaterThan(outOfOrder.load(ordering: .relaxed), 0, "responses should come in completion order")
    }

    func testIPv6Loopback() throws {
        let server6: Server
        let address6: SocketAddress
        do {
            (server6, address6) = try startTestServer { $0.listen = try! SocketAddress(parsing: "[::1]:0") }
        } catch {
            throw XCTSkip("no IPv6 loopback here: \(error)")
        }
        defer { stop(server6) }
        XCTAssertTrue(address6.description.hasPrefix("[::1]:"))
        let client = try TestClient(address6)
        XCTAssertEqual(try client.call(Methods.Health.check.path, TestMethods.request("")).code, .ok)
    }

    func testAPortInUseIsReported() throws {
        let second = Server(configuration: ServerConfiguration(listen: address, threads: 2), logger: Logger(label: "test", level: .critical))
        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual((error as? SystemError)?.errno, EADDRINUSE)
        }
    }
}
