import Synchronization
import XCTest
import PushwireClient
import PushwireWire

/// The generated typed clients call the right method with the request and options they are given.
final class GeneratedClientTests: XCTestCase {
    /// Records calls and answers each with the response type's encoding of a canned message.
    final class RecordingCaller: UnaryCaller {
        let calls = Mutex<[(path: String, request: [UInt8], timeout: Duration?)]>([])

        func call<Request, Response>(
            _ method: MethodDescriptor<Request, Response>, _ request: Request, options: CallOptions
        ) async throws -> Response {
            calls.withLock { $0.append((method.path, request.encode(), options.timeout)) }
            if method.path == Methods.Health.check.path {
                return try Response(decoding: HealthCheckResponse(status: .serving).encode())
            }
            throw RPCError(.unimplemented, method.path)
        }
    }

    func testTypedCallsGoThroughTheCaller() async throws {
        let caller = RecordingCaller()
        let health = try await caller.health.check(HealthCheckRequest(service: "pushwire.v1.Devices"),
                                                   options: CallOptions(timeout: .seconds(2)))
        XCTAssertEqual(health.status, .serving)
        do {
            _ = try await caller.devices.registerDevice(RegisterDeviceRequest(application: "A1B2C-3D4E5", hwid: "h"))
            XCTFail("expected an error")
        } catch let error as RPCError {
            XCTAssertEqual(error.code, .unimplemented)
        }
        let calls = caller.calls.withLock { $0 }
        XCTAssertEqual(calls.map(\.path), ["/pushwire.v1.Health/Check", "/pushwire.v1.Devices/RegisterDevice"])
        XCTAssertEqual(try HealthCheckRequest(decoding: calls[0].request).service, "pushwire.v1.Devices")
        XCTAssertEqual(calls[0].timeout, .seconds(2))
        XCTAssertEqual(try RegisterDeviceRequest(decoding: calls[1].request).hwid, "h")
    }
}
