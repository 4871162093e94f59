import XCTest
import PushwireWire
@testable import PushwireClient

/// The generated typed clients over `ClientConnection` and `ClientPool`, and the JSON bridge
/// cross-checked against the generated wrappers' own codec.
final class TypedClientTests: XCTestCase {
    /// Answers Health/Check with SERVING (NOT_FOUND for service "missing"), and echoes the rest.
    static let handler: @Sendable (FakeServer.Peer, SeenRequest) -> Void = { peer, request in
        guard request.method == Methods.Health.check.path else {
            peer.respond(request.callID, body: request.message)
            return
        }
        let check = try? HealthCheckRequest(decoding: request.message)
        if check?.service == "missing" {
            peer.respond(request.callID, code: .notFound, message: "unknown service")
        } else {
            peer.respond(request.callID, body: HealthCheckResponse(status: .serving).encode())
        }
    }

    func testTypedCallsOnAConnectionAndAPool() async throws {
        let server = try FakeServer(handler: Self.handler)
        defer { server.stop() }
        let connection = try await ClientConnection.connect(to: server.address)
        defer { connection.close() }
        let response = try await connection.health.check(HealthCheckRequest(), options: CallOptions(timeout: .seconds(2)))
        XCTAssertEqual(response.status, .serving)
        do {
            _ = try await connection.health.check(HealthCheckRequest(service: "missing"))
            XCTFail("expected NOT_FOUND")
        } catch let error as RPCError {
            XCTAssertEqual(error.code, .notFound)
        }

        let pool = ClientPool(address: server.address, connections: 2)
        defer { pool.close() }
        var request = RegisterDeviceRequest()
        request.hwid = "h1"
        request.deviceType = .ios
        request.knownCategoriesVersion = .max
        // The fake server echoes, so a RegisterDeviceRequest comes back parsed as the response type:
        // check instead that the typed call reaches the server with the bearer token and deadline.
        _ = try? await pool.devices.registerDevice(request, options: .bearer("app-token", timeout: .seconds(2)))
        let seen = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(seen.method, "/pushwire.v1.Devices/RegisterDevice")
        XCTAssertEqual(seen.metadata["authorization"], "Bearer app-token")
        XCTAssertEqual(seen.timeoutMS, 2000)
        XCTAssertEqual(try RegisterDeviceRequest(decoding: seen.message), request)
    }

    func testJSONBridgeAgreesWithTheGeneratedWrappers() throws {
        let json = #"{"application":"ABCDE-12345","hwid":"h1","pushToken":"tok","deviceType":"DEVICE_TYPE_IOS","timezone":-3600,"knownCategoriesVersion":"18446744073709551615","tags":[{"name":"n","value":{"intValue":"-5"}}]}"#
        let bytes = try ProtoJSON.encode(json, as: RegisterDeviceRequest.descriptor)
        let decoded = try RegisterDeviceRequest(decoding: bytes)
        XCTAssertEqual(decoded.application, "ABCDE-12345")
        XCTAssertEqual(decoded.pushToken, "tok")
        XCTAssertEqual(decoded.deviceType, .ios)
        XCTAssertEqual(decoded.timezone, -3600)
        XCTAssertEqual(decoded.knownCategoriesVersion, .max)
        XCTAssertEqual(decoded.tags.count, 1)
        XCTAssertEqual(try ProtoJSON.decode(decoded.encode(), as: RegisterDeviceRequest.descriptor), try ProtoJSON.parse(json))
    }

    func testCatalogMatchesMethodsAll() {
        XCTAssertEqual(MethodCatalog.all.map(\.path), Methods.all.map(\.path))
        for method in Methods.all {
            XCTAssertEqual(MethodCatalog.find(method.path)?.requestType, method.requestType.protoName)
            XCTAssertEqual(MethodCatalog.find(method.path)?.responseType, method.responseType.protoName)
        }
    }
}
