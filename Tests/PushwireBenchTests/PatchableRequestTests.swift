import PushwireWire
import XCTest

@testable import pushwire_bench

/// The per-call patched requests of `pushwire-bench register`: what the server receives must be
/// exactly what the generated wrappers would have encoded for that hwid.
final class PatchableRequestTests: XCTestCase {
    private func template(knownVersion: UInt64 = 0) throws -> PatchableRequest {
        let message = RegisterDeviceRequest(
            application: "A1B2C-3D4E5", hwid: "bench-0badf00d-\(PatchableRequest.marker)",
            pushToken: String(repeating: "a1", count: 26) + PatchableRequest.marker, deviceType: .ios, language: "en",
            timezone: 3600, appVersion: "1.0", knownCategoriesVersion: knownVersion)
        return try PatchableRequest(method: Methods.Devices.registerDevice.path, places: 2, message: message.encode())
    }

    func testCounterText() {
        XCTAssertEqual(PatchableRequest.text(0), "000000000000")
        XCTAssertEqual(PatchableRequest.text(0xabc_1234_5f), "000abc12345f")
        XCTAssertEqual(PatchableRequest.text(0xffff_ffff_ffff), "ffffffffffff")
        XCTAssertEqual(PatchableRequest.text(0x1_0000_0000_0000), "000000000000", "wraps at 16^12")
    }

    func testPatchedFrameDecodesToTheSameRequestAsTheWrapperEncodes() throws {
        let t = try template(knownVersion: 7)
        XCTAssertEqual(t.offsets.count, 2)
        for counter: UInt64 in [0, 1, 15, 16, 123_456_789, 0xffff_ffff_ffff] {
            var out: [UInt8] = [9, 9]  // whatever the buffer held before stays
            t.appendFrame(callID: 42, counter: counter, to: &out)
            XCTAssertEqual(Array(out[0..<2]), [9, 9])
            let frameBytes = Array(out[6...])
            let length = Int(out[2]) << 24 | Int(out[3]) << 16 | Int(out[4]) << 8 | Int(out[5])
            XCTAssertEqual(length, frameBytes.count)
            let frame = try Frame(decoding: frameBytes)
            XCTAssertEqual(frame.callID, 42)
            guard case .request(let request) = frame.kind else { return XCTFail("not a request: \(frame)") }
            XCTAssertEqual(request.method, "/pushwire.v1.Devices/RegisterDevice")
            let register = try RegisterDeviceRequest(decoding: request.message)
            let digits = PatchableRequest.text(counter)
            XCTAssertEqual(register.hwid, "bench-0badf00d-\(digits)")
            XCTAssertEqual(register.pushToken, String(repeating: "a1", count: 26) + digits)
            XCTAssertEqual(register.pushToken.count, 64)
            XCTAssertEqual(register.application, "A1B2C-3D4E5")
            XCTAssertEqual(register.deviceType, .ios)
            XCTAssertEqual(register.knownCategoriesVersion, 7)
            // Byte for byte what the wrapper encodes for the same hwid.
            let expected = RegisterDeviceRequest(
                application: "A1B2C-3D4E5", hwid: "bench-0badf00d-\(digits)",
                pushToken: String(repeating: "a1", count: 26) + digits, deviceType: .ios, language: "en", timezone: 3600,
                appVersion: "1.0", knownCategoriesVersion: 7)
            XCTAssertEqual(request.message, expected.encode())
        }
    }

    func testMissingMarkerIsAnError() {
        let message = RegisterDeviceRequest(application: "A", hwid: "no-marker")
        XCTAssertThrowsError(try PatchableRequest(method: "/pushwire.v1.Devices/RegisterDevice", places: 1, message: message.encode()))
    }
}
