import CProtobufC
import XCTest
@testable import PushwireWire

/// Bytes that are not a valid encoding give a typed error, never a crash or a wrong value.
final class MalformedInputTests: XCTestCase {
    private func assertKind<M: WireMessage>(
        _ type: M.Type, _ bytes: [UInt8], _ kind: WireDecodingError.Kind, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(decodingErrorKind(type, bytes), kind, "\(bytes)", file: file, line: line)
    }

    func testTruncationAtEveryOffset() throws {
        let frame = Frame(callID: 7, kind: .request(Request(
            method: "/pushwire.v1.Devices/RegisterDevice", timeoutMS: 1500,
            metadata: [Metadata(key: "authorization", value: "Bearer ✓")], message: [1, 2, 3])))
        let inputs: [(any WireMessage.Type, [UInt8])] = [
            (Frame.self, frame.encode()),
            (RegisterDeviceResponse.self, MaximalEncoding.bytes(RegisterDeviceResponse.descriptor)),
            (CreateMessageRequest.self, MaximalEncoding.bytes(CreateMessageRequest.descriptor)),
        ]
        for (type, bytes) in inputs { checkTruncations(type, bytes) }
    }

    private func checkTruncations<M: WireMessage>(_ type: M.Type, _ bytes: [UInt8]) {
        var failures = 0
        for cut in 0..<bytes.count {
            let prefix = Array(bytes[..<cut])
            switch decodeResult(M.self, prefix) {
            case .success(let value):
                // A cut between top-level fields leaves a shorter valid message.
                XCTAssertEqual(try M(decoding: value.encode()), value)
            case .failure(let error):
                failures += 1
                XCTAssertEqual(error.kind, .malformed, "\(M.protoName) cut at \(cut): \(error)")
            }
        }
        XCTAssertGreaterThan(failures, bytes.count / 2, M.protoName)
    }

    func testWrongWireTypes() {
        assertKind(Frame.self, lengthDelimited(1, [1]), .malformed)  // call_id is a varint
        assertKind(Frame.self, key(2, 0) + [1], .malformed)  // request is a message
        assertKind(Frame.self, key(2, 5) + [1, 2, 3, 4], .malformed)
        assertKind(Metadata.self, key(1, 1) + [UInt8](repeating: 0x41, count: 8), .malformed)  // key is a string
        assertKind(Ping.self, key(1, 5) + [0, 0, 0, 0], .malformed)  // payload is a uint64 varint
        assertKind(Settings.self, lengthDelimited(1, [1]), .malformed)  // singular scalars are never packed
    }

    func testHugeAndBadLengths() {
        assertKind(Request.self, key(4, 2) + varint(UInt64(Int32.max)) + [1, 2], .malformed)
        assertKind(Request.self, key(4, 2) + varint(UInt64.max), .malformed)
        assertKind(Request.self, key(4, 2) + [0x80, 0x80, 0x80, 0x80, 0x80, 0x00], .malformed)  // 6-byte length
        assertKind(Request.self, key(4, 2) + varint(3) + [1, 2], .malformed)
        assertKind(Request.self, key(4, 2), .malformed)
        assertKind(Frame.self, lengthDelimited(2, lengthDelimited(3, key(1, 2) + varint(100))), .malformed)  // inner length past the inner end
    }

    func testVarints() throws {
        let ten = key(1, 0) + [UInt8](repeating: 0xff, count: 9) + [0x01]
        XCTAssertEqual(try Ping(decoding: ten).payload, .max)
        assertKind(Ping.self, key(1, 0) + [UInt8](repeating: 0xff, count: 10) + [0x01], .malformed)  // 11 bytes
        assertKind(Ping.self, key(1, 0) + [0xff, 0xff], .malformed)  // runs off the end
        assertKind(Ping.self, [0x88, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01], .malformed)  // 6-byte key
        assertKind(Ping.self, [0x80, 0x80, 0x80, 0x80, 0x10, 0x00], .malformed)  // key above 2^32
        assertKind(Ping.self, [0x00, 0x00], .malformed)  // field number 0
    }

    func testGroupsAndReservedWireTypes() {
        assertKind(Ping.self, key(9, 3) + key(9, 4), .malformed)
        assertKind(Ping.self, key(9, 4), .malformed)
        assertKind(Ping.self, key(9, 6) + [0], .malformed)
        assertKind(Ping.self, key(9, 7) + [0], .malformed)
    }

    func testPackedFields() {
        assertKind(Targeting.self, lengthDelimited(3, [0x80]), .malformed)  // unfinished varint
        assertKind(Targeting.self, lengthDelimited(3, [1, 0xff]), .malformed)
        XCTAssertNil(decodingErrorKind(Targeting.self, lengthDelimited(3, [])))
    }

    func testInvalidUTF8() {
        let bad: [[UInt8]] = [
            [0xff], [0x80], [0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80],
            [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x61, 0xe2, 0x28, 0xa1],
            Array("long ascii prefix, then ".utf8) + [0xc3],
        ]
        for bytes in bad {
            assertKind(Metadata.self, lengthDelimited(1, bytes), .invalidUTF8)
            // The same, three messages deep.
            let frame = lengthDelimited(2, lengthDelimited(3, lengthDelimited(2, bytes)))
            assertKind(Frame.self, frame, .invalidUTF8)
            assertKind(CreateMessageResponse.self, lengthDelimited(1, Array("ok".utf8)) + lengthDelimited(1, bytes), .invalidUTF8)
        }
        // Bytes fields may hold anything.
        XCTAssertNil(decodingErrorKind(Request.self, lengthDelimited(4, [0xff, 0, 0xc0])))
    }

    func testNULInStrings() {
        for text in ["\0", "a\0b", "abcdefgh\0ijklmnop", "ab\0"] {
            assertKind(Metadata.self, lengthDelimited(2, Array(text.utf8)), .invalidUTF8)
        }
    }

    func testValidUTF8Edges() throws {
        for text in ["\u{7f}", "\u{80}", "\u{7ff}", "\u{800}", "\u{d7ff}", "\u{e000}", "\u{fffd}", "\u{10000}", "\u{10ffff}",
                     String(repeating: "abcdefg✓", count: 20)] {
            XCTAssertEqual(try Metadata(decoding: lengthDelimited(1, Array(text.utf8))).key, text)
        }
    }

    func testNestingLimit() {
        // Frame → Response → Status is 3 deep.
        let bytes = Frame(kind: .response(Response(status: Status(code: 5)))).encode()
        XCTAssertNil(validationError(bytes, Frame.descriptor, maxDepth: 3))
        XCTAssertEqual(validationError(bytes, Frame.descriptor, maxDepth: 2)?.kind, .tooDeep)
    }

    func testNestingLimitOnARecursiveSchema() {
        // The Pushwire schema has no recursive message, so build `message Node { Node child = 1; }`
        // as a protobuf-c descriptor and nest it past the limit.
        let node = RecursiveDescriptor()
        defer { node.release() }
        func nested(_ depth: Int) -> [UInt8] {
            depth == 1 ? [] : lengthDelimited(1, nested(depth - 1))
        }
        for depth in [1, 2, WireLimits.maxNestingDepth] {
            XCTAssertNil(validationError(nested(depth), node.descriptor), "depth \(depth)")
        }
        for depth in [WireLimits.maxNestingDepth + 1, 1000] {
            XCTAssertEqual(validationError(nested(depth), node.descriptor)?.kind, .tooDeep, "depth \(depth)")
        }
    }

    func testDeepUnknownFieldsAreSkippedNotWalked() throws {
        // protobuf-c never looks inside unknown fields, so their depth does not matter.
        var inner: [UInt8] = []
        for _ in 0..<200 { inner = lengthDelimited(15, inner) }
        XCTAssertEqual(try Ping(decoding: inner + key(1, 0) + [5]).payload, 5)
    }

    func testManyEmptySubmessagesStayBounded() throws {
        // 2 bytes of input per Notification struct: unpacking allocates far more than the input.
        let bytes: [UInt8] = (0..<20_000).map { $0 % 2 == 0 ? 0x0a : 0x00 }
        XCTAssertEqual(try CreateMessageRequest(decoding: bytes).notifications.count, 10_000)
        // Beyond the unpacking limit, decoding fails cleanly (and frees what protobuf-c allocated).
        let result = bytes.withUnsafeBytes { raw -> WireDecodingError? in
            do throws(WireDecodingError) {
                let _: CreateMessageRequest = try WireCodec.decode(raw, unpackLimit: 64 * 1024)
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(result?.kind, .outOfMemory)
        let small: CreateMessageRequest? = bytes.prefix(20).withUnsafeBytes { raw in try? WireCodec.decode(raw, unpackLimit: 64 * 1024) }
        XCTAssertEqual(small?.notifications.count, 10)
    }
}

/// What `WireValidator` says about `bytes`: nil when they are valid.
func validationError(
    _ bytes: [UInt8], _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, maxDepth: Int = WireLimits.maxNestingDepth
) -> WireDecodingError? {
    bytes.withUnsafeBytes { raw -> WireDecodingError? in
        do throws(WireDecodingError) {
            try WireValidator.validate(raw, descriptor, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }
}

/// A protobuf-c descriptor of `message Node { Node child = 1; }`, built by hand.
struct RecursiveDescriptor {
    let descriptor: UnsafeMutablePointer<ProtobufCMessageDescriptor>
    private let field: UnsafeMutablePointer<ProtobufCFieldDescriptor>
    private let ranges: UnsafeMutablePointer<ProtobufCIntRange>
    private let sorted: UnsafeMutablePointer<UInt32>
    // Safe: written once here and only read.
    nonisolated(unsafe) private static let name = strdup("test.Node")

    init() {
        descriptor = .allocate(capacity: 1)
        field = .allocate(capacity: 1)
        ranges = .allocate(capacity: 2)
        sorted = .allocate(capacity: 1)
        sorted.initialize(to: 0)
        ranges.initialize(to: ProtobufCIntRange(start_value: 1, orig_index: 0))
        (ranges + 1).initialize(to: ProtobufCIntRange(start_value: 0, orig_index: 1))
        var f = ProtobufCFieldDescriptor()
        f.name = UnsafePointer(Self.name)
        f.id = 1
        f.label = PROTOBUF_C_LABEL_NONE
        f.type = PROTOBUF_C_TYPE_MESSAGE
        f.descriptor = UnsafeRawPointer(descriptor)
        field.initialize(to: f)
        var d = ProtobufCMessageDescriptor()
        d.magic = UInt32(PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC)
        d.name = UnsafePointer(Self.name)
        d.n_fields = 1
        d.fields = UnsafePointer(field)
        d.fields_sorted_by_name = UnsafePointer(sorted)
        d.n_field_ranges = 1
        d.field_ranges = UnsafePointer(ranges)
        descriptor.initialize(to: d)
    }

    func release() {
        descriptor.deallocate()
        field.deallocate()
        ranges.deallocate()
        sorted.deallocate()
    }
}
