import CProtobufC
import PushwireProtoC
import XCTest

@testable import PushwireWire

/// `HotFrames` must write exactly what the generic frame codec (protobuf-c, through the generated
/// wrappers) writes, byte for byte, length prefix included, at the edges of every field.
final class HotFramesTests: XCTestCase {
    private let callIDs: [UInt32] = [0, 1, 127, 128, 16_383, 16_384, 2_097_152, UInt32.max]
    private let texts = ["", "x", "call id 7 is already in flight", "ünïcödé ✓ 🚀", String(repeating: "m", count: 300)]
    private let bodies: [[UInt8]] = [[], [0], [1], [UInt8](repeating: 0x7A, count: 200)]
    /// Needs a 3-byte length varint; tested at the call id edges only, to keep the debug run short.
    private let big = [UInt8](repeating: 0xFF, count: 70_000)
    private let payloads: [UInt64] = [0, 1, 127, 128, 1 << 35, 1 << 40, UInt64.max]

    /// protobuf-c's framed encoding of `frame`.
    private func codec(_ frame: Frame) -> [UInt8] {
        var bytes: [UInt8] = []
        frame.encode(appendingTo: &bytes, lengthPrefixed: true)
        return bytes
    }

    /// Runs `append` after a sentinel byte (each function appends after what is there) and
    /// returns what it added.
    private func appended(_ append: (inout [UInt8]) -> Void) -> [UInt8] {
        var out: [UInt8] = [0xEE]
        append(&out)
        XCTAssertEqual(out.first, 0xEE)
        return Array(out.dropFirst())
    }

    func testVarintPrimitivesAtEveryLengthBoundary() {
        var values: [UInt64] = [0, UInt64.max]
        for bits in stride(from: 7, through: 63, by: 7) {
            values += [(1 << UInt64(bits)) - 1, 1 << UInt64(bits)]
        }
        for value in values {
            var out: [UInt8] = []
            ProtoWriter.appendVarint(value, to: &out)
            XCTAssertEqual(out.count, ProtoWriter.varintSize(value), "\(value)")
            var decoded: UInt64 = 0
            for (index, byte) in out.enumerated() { decoded |= UInt64(byte & 0x7F) << UInt64(7 * index) }
            XCTAssertEqual(decoded, value)
        }
        var prefix: [UInt8] = []
        ProtoWriter.appendLengthPrefix(0x0102_0304, to: &prefix)
        XCTAssertEqual(prefix, [1, 2, 3, 4])
    }

    func testResponseFrameMatchesProtobufCForEveryStatusCode() {
        for status in StatusCode.allCases {
            for callID in callIDs {
                for message in texts {
                    for body in bodies {
                        let expected = codec(.response(callID: callID, status: status, message: message, body: body))
                        let actual = appended {
                            HotFrames.appendResponseFrame(callID: callID, status: status, message: message, body: body, to: &$0)
                        }
                        XCTAssertEqual(actual, expected, "\(status) \(callID) \(message.utf8.count) \(body.count)")
                        if actual != expected { return }
                    }
                }
            }
        }
        // A 70 000-byte body needs a 3-byte length varint.
        for callID in [0, UInt32.max] {
            let expected = codec(.response(callID: callID, status: .ok, body: big))
            XCTAssertEqual(appended { HotFrames.appendResponseFrame(callID: callID, status: .ok, message: "", body: big, to: &$0) }, expected)
        }
    }

    func testRequestFrameFromFieldsMatchesProtobufC() {
        let methods = ["", "/a/b", Methods.Health.check.path, "/pushwire.v1.Ünï/cödé"]
        let timeouts: [UInt32] = [0, 1, 1500, UInt32.max]
        let metadataSets: [[(key: String, value: String)]] = [
            [], [("authorization", "Bearer t"), ("x", "")], [("", "v"), ("ключ", "значение ✓")],
        ]
        for callID in callIDs {
            for method in methods {
                for timeout in timeouts {
                    for metadata in metadataSets {
                        for body in bodies {
                            let frame = Frame.request(
                                callID: callID, method: method, timeoutMS: timeout,
                                metadata: metadata.map { Metadata(key: $0.key, value: $0.value) }, message: body)
                            let actual = appended { out in
                                body.withUnsafeBytes {
                                    HotFrames.appendRequestFrame(
                                        callID: callID, method: method, timeoutMS: timeout, metadata: metadata, message: $0, to: &out)
                                }
                            }
                            XCTAssertEqual(actual, codec(frame), "\(callID) \(method) \(timeout) \(metadata.count) \(body.count)")
                            if actual != codec(frame) { return }
                        }
                    }
                }
            }
        }
        for callID in [0, UInt32.max] {
            let actual = appended { out in
                big.withUnsafeBytes {
                    HotFrames.appendRequestFrame(callID: callID, method: "/a/b", timeoutMS: 1, metadata: [("k", "v")], message: $0, to: &out)
                }
            }
            XCTAssertEqual(actual, codec(.request(callID: callID, method: "/a/b", timeoutMS: 1, metadata: [Metadata(key: "k", value: "v")], message: big)))
        }
        // A nil base address (an empty buffer that points nowhere) is an empty message.
        let actual = appended {
            HotFrames.appendRequestFrame(callID: 1, method: "/a/b", timeoutMS: 0, metadata: [],
                                         message: UnsafeRawBufferPointer(start: nil, count: 0), to: &$0)
        }
        XCTAssertEqual(actual, codec(.request(callID: 1, method: "/a/b", message: [])))
    }

    func testRequestFrameFromPrebuiltRequestMatchesProtobufC() {
        let metadataSets: [[(key: String, value: String)]] = [[], [("authorization", "Bearer abc")]]
        for callID in callIDs {
            for metadata in metadataSets {
                for body in bodies {
                    for method in ["", Methods.Health.check.path] {
                        let request = HotFrames.requestMessage(method: method, timeoutMS: 1500, metadata: metadata, message: body)
                        let frame = Frame.request(
                            callID: callID, method: method, timeoutMS: 1500,
                            metadata: metadata.map { Metadata(key: $0.key, value: $0.value) }, message: body)
                        let actual = appended { HotFrames.appendRequestFrame(callID: callID, request: request, to: &$0) }
                        XCTAssertEqual(actual, codec(frame), "\(callID) \(metadata.count) \(body.count) \(method)")
                    }
                }
            }
            let request = HotFrames.requestMessage(method: "/a/b", message: big)
            XCTAssertEqual(appended { HotFrames.appendRequestFrame(callID: callID, request: request, to: &$0) },
                           codec(.request(callID: callID, method: "/a/b", message: big)))
            // An all-default Request is empty bytes, still sent as a present (empty) request.
            let empty = HotFrames.requestMessage(method: "", message: [])
            XCTAssertEqual(empty, [])
            XCTAssertEqual(appended { HotFrames.appendRequestFrame(callID: callID, request: empty, to: &$0) },
                           codec(.request(callID: callID, method: "", message: [])))
        }
    }

    func testCancelPingPongMatchProtobufC() {
        for callID in callIDs {
            XCTAssertEqual(appended { HotFrames.appendCancelFrame(callID: callID, to: &$0) }, codec(.cancel(callID: callID)), "\(callID)")
        }
        for payload in payloads {
            XCTAssertEqual(appended { HotFrames.appendPingFrame(payload: payload, to: &$0) }, codec(.ping(payload)), "\(payload)")
            XCTAssertEqual(appended { HotFrames.appendPongFrame(payload: payload, to: &$0) }, codec(.pong(payload)), "\(payload)")
        }
    }

    func testFramesDecodeWithTheSharedDecoder() throws {
        var out: [UInt8] = []
        HotFrames.appendRequestFrame(callID: 300, request: HotFrames.requestMessage(method: "/a/b", message: [1]), to: &out)
        HotFrames.appendCancelFrame(callID: 300, to: &out)
        HotFrames.appendPingFrame(payload: 5, to: &out)
        HotFrames.appendPongFrame(payload: 6, to: &out)
        HotFrames.appendResponseFrame(callID: 300, status: .notFound, message: "no", body: [], to: &out)
        var decoder = FrameDecoder(expectsPreface: false)
        decoder.append(out)
        XCTAssertEqual(try decoder.nextFrame(), .request(callID: 300, method: "/a/b", message: [1]))
        XCTAssertEqual(try decoder.nextFrame(), .cancel(callID: 300))
        XCTAssertEqual(try decoder.nextFrame(), .ping(5))
        XCTAssertEqual(try decoder.nextFrame(), .pong(6))
        XCTAssertEqual(try decoder.nextFrame(), .response(callID: 300, status: .notFound, message: "no"))
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }
}

/// The in-place scanner against frames packed by protobuf-c and written by `HotFrames`.
final class HotFrameScannerTests: XCTestCase {
    /// Packs a frame with protobuf-c (what the real server does) and scans it.
    private func scanPacked(_ frame: inout Pushwire__V1__Frame) -> HotFrames.Event? {
        var bytes = [UInt8](repeating: 0, count: pushwire__v1__frame__get_packed_size(&frame))
        _ = bytes.withUnsafeMutableBufferPointer { pushwire__v1__frame__pack(&frame, $0.baseAddress) }
        return bytes.withUnsafeBytes { HotFrames.scan($0) }
    }

    /// Scans one length-prefixed frame after checking its prefix.
    private func scanFramed(_ framed: [UInt8]) -> HotFrames.Event? {
        let length = Int(framed[0]) << 24 | Int(framed[1]) << 16 | Int(framed[2]) << 8 | Int(framed[3])
        XCTAssertEqual(length, framed.count - 4, "length prefix")
        return Array(framed[4...]).withUnsafeBytes { HotFrames.scan($0) }
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

    func testScansEveryHotFrame() {
        for status in StatusCode.allCases {
            for callID: UInt32 in [0, 1, UInt32.max] {
                var out: [UInt8] = []
                HotFrames.appendResponseFrame(callID: callID, status: status, message: "ünï", body: [1, 2], to: &out)
                XCTAssertEqual(scanFramed(out), .response(callID: callID, code: status.rawValue))
            }
        }
        for payload: UInt64 in [0, 1, .max] {
            var out: [UInt8] = []
            HotFrames.appendPingFrame(payload: payload, to: &out)
            XCTAssertEqual(scanFramed(out), .ping(payload: payload))
            out = []
            HotFrames.appendPongFrame(payload: payload, to: &out)
            XCTAssertEqual(scanFramed(out), .pong(payload: payload))
        }
        var out: [UInt8] = []
        HotFrames.appendRequestFrame(callID: 42, request: HotFrames.requestMessage(method: "/a/b", message: []), to: &out)
        // The method is the byte range of "/a/b" inside the frame payload.
        XCTAssertEqual(scanFramed(out), .request(callID: 42, method: 6..<10))
        out = []
        HotFrames.appendCancelFrame(callID: 3, to: &out)
        XCTAssertEqual(scanFramed(out), .other)
    }

    func testScansFramesEncodedByGeneratedWrappers() {
        let response = Frame(callID: 7, kind: .response(Response(status: Status(code: 16, message: "no"), message: [1])))
        XCTAssertEqual(response.encode().withUnsafeBytes { HotFrames.scan($0) }, .response(callID: 7, code: 16))
        let goAway = Frame(callID: 0, kind: .goAway(GoAway(lastCallID: 12, status: Status(code: 14, message: "bye"))))
        XCTAssertEqual(goAway.encode().withUnsafeBytes { HotFrames.scan($0) }, .goAway(lastCallID: 12, code: 14))
        let settings = Frame.settings(Settings(maxFrameSize: 1 << 20, maxConcurrentCalls: 1024, serverName: "x", protocolVersion: 1))
        XCTAssertEqual(settings.encode().withUnsafeBytes { HotFrames.scan($0) }, .settings(maxConcurrentCalls: 1024))
    }

    /// Found by the hot-frames fuzz target (docs/FUZZING.md): of two members of the frame's oneof
    /// the last counts, as protobuf-c reads it; a cancel after a pong was scanned as the pong.
    func testTheLastKindOfAFrameCounts() {
        let frames: [([UInt8], HotFrames.Event)] = [
            ([0x32, 0x00, 0x22, 0x00], .other),  // pong {}, then cancel {}
            ([0x22, 0x00, 0x32, 0x00], .pong(payload: 0)),  // cancel {}, then pong {}
            ([0x08, 0x05, 0x1A, 0x02, 0x0A, 0x00, 0x22, 0x00], .other),  // response, then cancel
        ]
        for (bytes, event) in frames {
            let decoded = bytes.withUnsafeBytes { try? Frame(decoding: $0) }
            XCTAssertNotNil(decoded, "\(bytes)")
            XCTAssertEqual(bytes.withUnsafeBytes { HotFrames.scan($0) }, event, "\(bytes) decodes as \(String(describing: decoded))")
        }
    }

    /// The server answers a frame `scanPing` accepts without decoding it: it must accept exactly
    /// the pings the regular decoder reads, with the same payload, and decline everything else.
    func testScanPingTakesPingsOnlyWithThePayloadTheDecoderReads() throws {
        func scanned(_ bytes: [UInt8]) -> UInt64? { bytes.withUnsafeBytes { HotFrames.scanPing($0) } }
        /// protobuf-c's encoding of `frame`, without the length prefix.
        func codec(_ frame: Frame) -> [UInt8] {
            var bytes: [UInt8] = []
            frame.encode(appendingTo: &bytes, lengthPrefixed: false)
            return bytes
        }
        let payloads: [UInt64] = [0, 1, 127, 128, 1 << 35, UInt64.max]
        for payload in payloads {
            let ping = codec(.ping(payload))
            let withCallID = [0x08, 0x07] + ping  // call_id 7, then ping: field order
            for bytes in [ping, withCallID] {
                XCTAssertEqual(scanned(bytes), payload, "\(bytes)")
                guard case .ping(let decoded)? = try bytes.withUnsafeBytes({ try Frame(decoding: $0) }).kind else { return XCTFail("not a ping: \(bytes)") }
                XCTAssertEqual(decoded.payload, payload)
            }
            // Anything more than a ping, or a ping written another way, is the decoder's.
            XCTAssertNil(scanned(ping + [0x48, 0x01]), "an unknown field after the ping")
            XCTAssertNil(scanned(ping + ping), "a second ping")
            XCTAssertNil(scanned(ping + [0x08, 0x07]), "call_id after the ping")
            XCTAssertNil(scanned(Array(ping.dropLast())), "truncated")
            XCTAssertNil(scanned(codec(.pong(payload))), "a pong")
        }
        XCTAssertEqual(scanned([0x2A, 0x00]), 0, "an empty ping")
        XCTAssertNil(scanned([0x2A, 0x02, 0x10, 0x01]), "an unknown field inside the ping")
        XCTAssertNil(scanned([0x2A, 0x02, 0x09, 0x01]), "payload with the wrong wire type")
        XCTAssertNil(scanned([]), "an empty frame")
        XCTAssertNil(scanned(codec(.cancel(callID: 3))), "a cancel")
        XCTAssertNil(scanned([0x08, 0x01]), "a call id alone")
    }

    func testMalformedBytesScanAsNil() {
        let cases: [[UInt8]] = [[0x1A, 0x05, 0x0A], [0x08], [0x00], [0x1A, 0x02, 0x0A, 0x09], [0x0F]]
        for bytes in cases {
            XCTAssertNil(bytes.withUnsafeBytes { HotFrames.scan($0) }, "\(bytes)")
        }
    }
}
