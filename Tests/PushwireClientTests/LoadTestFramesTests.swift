import CProtobufC
import PushwireWire
import PushwireProtoC
import XCTest

@testable import PushwireClient

/// The harness's hand-written frames against protobuf-c, the codec every other part uses.
final class LoadTestFramesTests: XCTestCase {
    /// Strips and checks the 4-byte big-endian length prefix.
    private func payload(_ frame: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
        let length = Int(frame[0]) << 24 | Int(frame[1]) << 16 | Int(frame[2]) << 8 | Int(frame[3])
        XCTAssertEqual(length, frame.count - 4, "length prefix", file: file, line: line)
        return Array(frame[4...])
    }

    func testRequestFrameDecodesWithProtobufC() throws {
        let request = LoadTestFrames.requestMessage(
            method: "/pushwire.v1.Health/Check", timeoutMS: 1500, metadata: [("authorization", "Bearer abc")],
            message: [0x0A, 0x01, 0x78])
        var frame: [UInt8] = []
        LoadTestFrames.appendRequestFrame(callID: 300_000, request: request, to: &frame)
        let bytes = payload(frame)
        let decoded = try XCTUnwrap(bytes.withUnsafeBufferPointer { pushwire__v1__frame__unpack(nil, $0.count, $0.baseAddress) })
        defer { pushwire__v1__frame__free_unpacked(decoded, nil) }
        XCTAssertEqual(decoded.pointee.call_id, 300_000)
        XCTAssertEqual(decoded.pointee.kind_case, PUSHWIRE__V1__FRAME__KIND_REQUEST)
        let req = try XCTUnwrap(decoded.pointee.request)
        XCTAssertEqual(String(cString: req.pointee.method), "/pushwire.v1.Health/Check")
        XCTAssertEqual(req.pointee.timeout_ms, 1500)
        XCTAssertEqual(req.pointee.n_metadata, 1)
        let meta = try XCTUnwrap(req.pointee.metadata?[0])
        XCTAssertEqual(String(cString: meta.pointee.key), "authorization")
        XCTAssertEqual(String(cString: meta.pointee.value), "Bearer abc")
        XCTAssertEqual(Array(UnsafeBufferPointer(start: req.pointee.message.data, count: req.pointee.message.len)), [0x0A, 0x01, 0x78])
    }

    func testPingFrameDecodesWithProtobufC() throws {
        for value: UInt64 in [0, 1, 127, 128, 1 << 40, .max] {
            var frame: [UInt8] = []
            LoadTestFrames.appendPingFrame(payload: value, to: &frame)
            let bytes = payload(frame)
            let decoded = try XCTUnwrap(bytes.withUnsafeBufferPointer { pushwire__v1__frame__unpack(nil, $0.count, $0.baseAddress) })
            defer { pushwire__v1__frame__free_unpacked(decoded, nil) }
            XCTAssertEqual(decoded.pointee.kind_case, PUSHWIRE__V1__FRAME__KIND_PING)
            XCTAssertEqual(decoded.pointee.ping?.pointee.payload, value)
        }
    }

    /// Packs a frame with protobuf-c (what the real server does) and scans it.
    private func scanPacked(_ frame: inout Pushwire__V1__Frame) -> LoadTestFrames.Event? {
        var bytes = [UInt8](repeating: 0, count: pushwire__v1__frame__get_packed_size(&frame))
        _ = bytes.withUnsafeMutableBufferPointer { pushwire__v1__frame__pack(&frame, $0.baseAddress) }
        return bytes.withUnsafeBytes { LoadTestFrames.scan($0) }
    }

    func testScansResponsesPackedByProtobufC() {
        var status = Pushwire__V1__Status()
        pushwire__v1__status__init(&status)
        status.code = 5
        var response = Pushwire__V1__Response()
        pushwire__v1__response__init(&response)
        var frame = Pushwire__V1__Frame()
        pushwire__v1__frame__init(&frame)
        frame.call_id = 77
        withUnsafeMutablePointer(to: &status) { statusPointer in
            response.status = statusPointer
            withUnsafeMutablePointer(to: &response) { responsePointer in
                frame.kind_case = PUSHWIRE__V1__FRAME__KIND_RESPONSE
                frame.response = responsePointer
                XCTAssertEqual(scanPacked(&frame), .response(callID: 77, code: 5))
                statusPointer.pointee.code = 0
                XCTAssertEqual(scanPacked(&frame), .response(callID: 77, code: 0))
                responsePointer.pointee.status = nil
                XCTAssertEqual(scanPacked(&frame), .streamItem(callID: 77))
            }
        }
        var pong = Pushwire__V1__Pong()
        pushwire__v1__pong__init(&pong)
        pong.payload = 1 << 35
        var pongFrame = Pushwire__V1__Frame()
        pushwire__v1__frame__init(&pongFrame)
        withUnsafeMutablePointer(to: &pong) { pongPointer in
            pongFrame.kind_case = PUSHWIRE__V1__FRAME__KIND_PONG
            pongFrame.pong = pongPointer
            XCTAssertEqual(scanPacked(&pongFrame), .pong(payload: 1 << 35))
        }
    }

    func testOwnResponseAndSettingsFramesRoundTrip() throws {
        var out: [UInt8] = []
        LoadTestFrames.appendResponseFrame(callID: 9, code: 3, message: [1, 2], to: &out)
        XCTAssertEqual(payload(out).withUnsafeBytes { LoadTestFrames.scan($0) }, .response(callID: 9, code: 3))
        out = []
        LoadTestFrames.appendSettingsFrame(maxFrameSize: 1 << 20, maxConcurrentCalls: 1024, serverName: "x", to: &out)
        let bytes = payload(out)
        XCTAssertEqual(bytes.withUnsafeBytes { LoadTestFrames.scan($0) }, .settings(maxConcurrentCalls: 1024))
        let decoded = try XCTUnwrap(bytes.withUnsafeBufferPointer { pushwire__v1__frame__unpack(nil, $0.count, $0.baseAddress) })
        defer { pushwire__v1__frame__free_unpacked(decoded, nil) }
        XCTAssertEqual(decoded.pointee.settings?.pointee.max_frame_size, 1 << 20)
        XCTAssertEqual(decoded.pointee.settings?.pointee.protocol_version, 1)
    }

    func testMalformedBytesScanAsNil() {
        let cases: [[UInt8]] = [[0x1A, 0x05, 0x0A], [0x08], [0x00], [0x1A, 0x02, 0x0A, 0x09], [0x0F]]
        for bytes in cases {
            XCTAssertNil(bytes.withUnsafeBytes { LoadTestFrames.scan($0) }, "\(bytes)")
        }
    }
}

/// The same frames against the generated wrappers of PushwireWire.
final class LoadTestFramesWrapperTests: XCTestCase {
    func testRequestFrameDecodesAsGeneratedFrame() throws {
        let request = LoadTestFrames.requestMessage(method: Methods.Health.check.path, message: [])
        var bytes: [UInt8] = []
        LoadTestFrames.appendRequestFrame(callID: 42, request: request, to: &bytes)
        let frame = try Frame(decoding: Array(bytes[4...]))
        XCTAssertEqual(frame.callID, 42)
        guard case .request(let decoded) = frame.kind else { return XCTFail("not a request: \(frame)") }
        XCTAssertEqual(decoded.method, "/pushwire.v1.Health/Check")
    }

    func testScansFramesEncodedByGeneratedWrappers() {
        let response = Frame(callID: 7, kind: .response(Response(status: Status(code: 16, message: "no"), message: [1])))
        XCTAssertEqual(response.encode().withUnsafeBytes { LoadTestFrames.scan($0) }, .response(callID: 7, code: 16))
        let pong = Frame(callID: 0, kind: .pong(Pong(payload: 99)))
        XCTAssertEqual(pong.encode().withUnsafeBytes { LoadTestFrames.scan($0) }, .pong(payload: 99))
        let goAway = Frame(callID: 0, kind: .goAway(GoAway(lastCallID: 12, status: Status(code: 14, message: "bye"))))
        XCTAssertEqual(goAway.encode().withUnsafeBytes { LoadTestFrames.scan($0) }, .goAway(lastCallID: 12, code: 14))
    }
}
