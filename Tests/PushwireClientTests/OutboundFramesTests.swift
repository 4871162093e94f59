import XCTest
import PushwireWire
@testable import PushwireClient

/// The client writes its frames by hand for speed; these check them against the shared decoder.
final class OutboundFramesTests: XCTestCase {
    private func decodeOne(_ bytes: [UInt8]) throws -> Frame {
        var decoder = FrameDecoder(expectsPreface: false)
        decoder.append(bytes)
        let frame = try XCTUnwrap(try decoder.nextFrame())
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        return frame
    }

    func testRequestMatchesTheBuilder() throws {
        var out: [UInt8] = []
        let body: [UInt8] = Array(repeating: 7, count: 300)
        body.withUnsafeBytes {
            OutboundFrames.appendRequest(callID: 300, method: "/pushwire.v1.Health/Check", timeoutMS: 1500,
                                         metadata: [("authorization", "Bearer t"), ("x", "")], message: $0, to: &out)
        }
        let expected = Frame.request(callID: 300, method: "/pushwire.v1.Health/Check", timeoutMS: 1500,
                                     metadata: [Metadata(key: "authorization", value: "Bearer t"), Metadata(key: "x", value: "")], message: body)
        XCTAssertEqual(try decodeOne(out), expected)
    }

    func testEmptyRequestCancelPingPong() throws {
        var out: [UInt8] = []
        OutboundFrames.appendRequest(callID: 1, method: "/a/b", timeoutMS: 0, metadata: [], message: UnsafeRawBufferPointer(start: nil, count: 0), to: &out)
        XCTAssertEqual(try decodeOne(out), Frame.request(callID: 1, method: "/a/b", message: []))
        out = []
        OutboundFrames.appendCancel(callID: 4_000_000_000, to: &out)
        XCTAssertEqual(try decodeOne(out), Frame.cancel(callID: 4_000_000_000))
        for payload: UInt64 in [0, 1, .max] {
            out = []
            OutboundFrames.appendPing(payload, to: &out)
            XCTAssertEqual(try decodeOne(out), Frame.ping(payload))
            out = []
            OutboundFrames.appendPing(payload, pong: true, to: &out)
            XCTAssertEqual(try decodeOne(out), Frame.pong(payload))
        }
    }
}
