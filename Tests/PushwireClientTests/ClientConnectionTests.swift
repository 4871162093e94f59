import XCTest
import Synchronization
import PushwireWire
@testable import PushwireClient

final class ClientConnectionTests: XCTestCase {
    /// Echoes the request body, or fails with the status named by the method's last path segment.
    static let echo: @Sendable (FakeServer.Peer, SeenRequest) -> Void = { peer, request in
        if request.method.hasSuffix("/Fail") {
            peer.respond(request.callID, code: .notFound, message: "device not found")
        } else if !request.method.hasSuffix("/Never") {
            peer.respond(request.callID, body: request.message)
        }
    }

    func testConnectReadsSettingsAndEchoes() async throws {
        let server = try FakeServer(handler: Self.echo)
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address, timeout: .seconds(2))
        defer { connection.close() }
        XCTAssertEqual(connection.settings.serverName, "fake")
        XCTAssertEqual(connection.settings.maxFrameSize, 1 << 22)
        let reply = try await connection.call(path: "/pushwire.v1.Test/Echo", request: [1, 2, 3],
                                              options: .bearer("s3cret", timeout: .seconds(2)))
        XCTAssertEqual(reply, [1, 2, 3])
        let seen = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(seen.metadata["authorization"], "Bearer s3cret")
        XCTAssertEqual(seen.timeoutMS, 2000)
        XCTAssertEqual(seen.method, "/pushwire.v1.Test/Echo")
    }

    func testServerStatusBecomesRPCError() async throws {
        let server = try FakeServer(handler: Self.echo)
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address)
        defer { connection.close() }
        do {
            _ = try await connection.call(path: "/pushwire.v1.Test/Fail", request: [])
            XCTFail("expected an error")
        } catch let error as RPCError {
            XCTAssertEqual(error.code, .notFound)
            XCTAssertEqual(error.description, "NOT_FOUND: device not found")
        }
    }

    func testManyConcurrentCallsAnsweredOutOfOrder() async throws {
        let total = 200
        let held = Mutex<[SeenRequest]>([])
        // Holds every request until all arrived, then answers them in reverse order.
        let server = try FakeServer { peer, request in
            let all = held.withLock { list -> [SeenRequest]? in
                list.append(request)
                return list.count == total ? list : nil
            }
            for r in (all ?? []).reversed() { peer.respond(r.callID, body: r.message) }
        }
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address)
        defer { connection.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<total {
                group.addTask {
                    let body = Array("call \(i)".utf8)
                    let reply = try await connection.call(path: "/pushwire.v1.Test/Echo", request: body, options: CallOptions(timeout: .seconds(10)))
                    XCTAssertEqual(reply, body)
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(Set(server.requests.map(\.callID)).count, total)
    }

    func testLocalDeadlineWhenServerNeverAnswers() async throws {
        let server = try FakeServer(handler: Self.echo)
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address)
        defer { connection.close() }
        let start = ContinuousClock.now
        await assertRPCError(.deadlineExceeded) {
            try await connection.call(path: "/pushwire.v1.Test/Never", request: [], options: CallOptions(timeout: .milliseconds(150)))
        }
        let elapsed = start.duration(to: .now)
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(140))
        XCTAssertLessThan(elapsed, .seconds(2))
        // The connection still works afterwards.
        let reply = try await connection.call(path: "/pushwire.v1.Test/Echo", request: [9])
        XCTAssertEqual(reply, [9])
    }

    func testShorterDeadlineAfterLongerOneStillFiresOnTime() async throws {
        let server = try FakeServer(handler: Self.echo)
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address)
        defer { connection.close() }
        let long = Task { try await connection.call(path: "/pushwire.v1.Test/Never", request: [], options: CallOptions(timeout: .seconds(3))) }
        try await waitUntil { server.requests.count == 1 }
        let start = ContinuousClock.now
        await assertRPCError(.deadlineExceeded) {
            try await connection.call(path: "/pushwire.v1.Test/Never", request: [], options: CallOptions(timeout: .milliseconds(100)))
        }
        XCTAssertLessThan(start.duration(to: .now), .seconds(1))
        // The expired call was cancelled on the wire; the long one is still pending.
        try await waitUntil { server.cancels.count == 1 }
        long.cancel()
        _ = try? await long.value
    }

    func testTaskCancellationSendsCancel() async throws {
        let server = try FakeServer(handler: Self.echo)
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address)
        defer { connection.close() }
        let task = Task { try await connection.call(path: "/pushwire.v1.Test/Never", request: []) }
        try await waitUntil { server.requests.count == 1 }
        task.cancel()
        await assertRPCError(.cancelled) { try await task.value }
        let id = try XCTUnwrap(server.requests.first?.callID)
        try await waitUntil { server.cancels == [id] }
    }

    func testConnectionLossFailsPendingCallsWithUnavailable() async throws {
        let server = try FakeServer(handler: Self.echo)
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address)
        defer { connection.close() }
        let calls = (0..<5).map { _ in Task { try await connection.call(path: "/pushwire.v1.Test/Never", request: []) } }
        try await waitUntil { server.requests.count == 5 }
        server.peers.first?.kill()
        for call in calls {
            await assertRPCError(.unavailable) { try await call.value }
        }
        XCTAssertTrue(connection.isClosed)
        await assertRPCError(.unavailable) { try await connection.call(path: "/pushwire.v1.Test/Echo", request: []) }
    }

    func testGoAwayFailsCallsAboveLastCallIDAndRefusesNewOnes() async throws {
        let server = try FakeServer(handler: Self.echo)
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address)
        defer { connection.close() }
        let calls = (0..<4).map { _ in Task { try await connection.call(path: "/pushwire.v1.Test/Never", request: []) } }
        try await waitUntil { server.requests.count == 4 }
        let ids = server.requests.map(\.callID).sorted()
        let peer = try XCTUnwrap(server.peers.first)
        peer.goAway(lastCallID: ids[1])
        // Calls up to last_call_id finish normally.
        peer.respond(ids[0], body: [1])
        peer.respond(ids[1], body: [2])
        var outcomes: [UInt32: Result<[UInt8], RPCError>] = [:]
        for call in calls {
            do { let r = try await call.value; outcomes[UInt32(r.first ?? 0)] = .success(r) } catch let e as RPCError { outcomes[UInt32(100 + outcomes.count)] = .failure(e) }
        }
        let failures = outcomes.values.compactMap { if case .failure(let e) = $0 { e } else { nil } }
        XCTAssertEqual(failures.count, 2)
        XCTAssertTrue(failures.allSatisfy { $0.code == .unavailable })
        XCTAssertTrue(connection.isClosed)
        await assertRPCError(.unavailable) { try await connection.call(path: "/pushwire.v1.Test/Echo", request: []) }
    }

    func testConcurrencyLimitFailsWithResourceExhausted() async throws {
        let server = try FakeServer(maxConcurrentCalls: 2, handler: Self.echo)
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address)
        defer { connection.close() }
        let calls = (0..<2).map { _ in Task { try await connection.call(path: "/pushwire.v1.Test/Never", request: [], options: CallOptions(timeout: .seconds(1))) } }
        try await waitUntil { server.requests.count == 2 }
        await assertRPCError(.resourceExhausted) { try await connection.call(path: "/pushwire.v1.Test/Echo", request: []) }
        for call in calls { _ = try? await call.value }
    }

    func testPing() async throws {
        let server = try FakeServer(handler: Self.echo)
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address)
        defer { connection.close() }
        let rtt = try await connection.ping()
        XCTAssertLessThan(rtt, .seconds(1))
    }

    func testConnectFailures() async throws {
        await assertRPCError(.unavailable) { try await ClientConnection.connect(to: "127.0.0.1:1", timeout: .seconds(1)) }
        await assertRPCError(.invalidArgument) { try await ClientConnection.connect(to: "no-port-here", timeout: .seconds(1)) }
    }

    func testRefusedConnectionFailsWithTheServersReason() async throws {
        let server = try FakeServer(refuseConnections: true, handler: Self.echo)
        defer { server.stop() }
        let error = await assertRPCError(.unavailable) {
            try await ClientConnection.connect(to: server.address, timeout: .seconds(2))
        }
        XCTAssertTrue(error?.message.contains("RESOURCE_EXHAUSTED: too many connections") ?? false, "\(String(describing: error))")
    }

    func testPoolReconnectsAfterConnectionLoss() async throws {
        let server = try FakeServer(handler: Self.echo)
        defer { server.stop() }
        let pool = ClientPool(address: server.address, connections: 2, connectTimeout: .seconds(2),
                              backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)))
        defer { pool.close() }
        let reply = try await pool.call(path: "/pushwire.v1.Test/Echo", request: [7], options: CallOptions(timeout: .seconds(2)))
        XCTAssertEqual(reply, [7])
        try await waitUntil { server.peers.count == 2 && pool.connectedCount == 2 }
        for peer in server.peers { peer.kill() }
        try await waitUntil { server.peers.count == 4 && pool.connectedCount == 2 }
        for i in 0..<10 {
            let reply = try await pool.call(path: "/pushwire.v1.Test/Echo", request: [UInt8(i)], options: CallOptions(timeout: .seconds(2)))
            XCTAssertEqual(reply, [UInt8(i)])
        }
    }

    func testPoolFailsUnavailableWhenServerIsDown() async throws {
        let pool = ClientPool(address: "127.0.0.1:1", connections: 1, connectTimeout: .milliseconds(200))
        defer { pool.close() }
        await assertRPCError(.unavailable) {
            try await pool.call(path: "/pushwire.v1.Test/Echo", request: [], options: CallOptions(timeout: .milliseconds(200)))
        }
    }

    /// The `RPCError` that `body` throws, once its code is checked against `code`; a failure (and
    /// nil) when `body` returns or throws anything else.
    @discardableResult
    private func assertRPCError<T>(_ code: StatusCode, file: StaticString = #filePath, line: UInt = #line,
                                   _ body: () async throws -> T) async -> RPCError? {
        do {
            _ = try await body()
            XCTFail("expected \(code)", file: file, line: line)
        } catch let error as RPCError {
            XCTAssertEqual(error.code, code, file: file, line: line)
            return error
        } catch {
            XCTFail("expected \(code), not \(error)", file: file, line: line)
        }
        return nil
    }

    private func waitUntil(timeout: Duration = .seconds(5), _ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                XCTFail("condition not met in time")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
