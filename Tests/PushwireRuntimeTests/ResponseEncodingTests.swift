import PushwireWire
import XCTest
@testable import PushwireRuntime

/// The server's direct response encoder must write exactly what the generic frame codec writes.
final class ResponseEncodingTests: XCTestCase {
    func testMatchesTheFrameCodecByteForByte() {
        let bodies: [[UInt8]] = [[], [1], [UInt8](repeating: 0x7A, count: 200)]
        let messages = ["", "x", "call id 7 is already in flight", "ünïcödé ✓", String(repeating: "m", count: 300)]
        let callIDs: [UInt32] = [0, 1, 127, 128, 16_384, UInt32.max]
        for status in [StatusCode.ok, .cancelled, .unauthenticated] {
            for callID in callIDs {
                for message in messages {
                    for body in bodies {
                        var expected: [UInt8] = []
                        Frame.response(callID: callID, status: status, message: message, body: body)
                            .encode(appendingTo: &expected, lengthPrefixed: true)
                        var actual: [UInt8] = [0xEE]  // appends after what is there
                        ResponseEncoding.append(callID: callID, status: status, message: message, body: body, to: &actual)
                        XCTAssertEqual(Array(actual.dropFirst()), expected, "\(status) \(callID) \(message.count) \(body.count)")
                        if Array(actual.dropFirst()) != expected { return }
                    }
                }
            }
        }
        // A body whose length needs a 3-byte varint.
        let big = [UInt8](repeating: 0, count: 70_000)
        var expected: [UInt8] = []
        Frame.response(callID: 9, status: .ok, body: big).encode(appendingTo: &expected, lengthPrefixed: true)
        var actual: [UInt8] = []
        ResponseEncoding.append(callID: 9, status: .ok, message: "", body: big, to: &actual)
        XCTAssertEqual(actual, expected)
    }
}
