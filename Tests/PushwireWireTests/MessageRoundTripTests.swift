import CProtobufC
import XCTest
@testable import PushwireWire

/// Every message type survives encode → decode: empty, with every field set (each oneof member in
/// turn), and with unicode text; the Swift encoding is byte for byte protobuf-c's.
final class MessageRoundTripTests: XCTestCase {
    func testEveryMessageTypeIsListed() {
        // 62: FcmSettings, PlatformCount (issue 18); 72: the console's four Messages methods (issue 20);
        // 74: SetBadge (issue 19); 75: TapMinute (GetMessageDetails.taps_over_time, issue 20).
        XCTAssertEqual(MessageTypes.all.count, 75)
        XCTAssertEqual(Set(MessageTypes.all.map { $0.protoName }).count, MessageTypes.all.count)
    }

    func testDefaultValuesRoundTrip() throws {
        for type in MessageTypes.all { try checkDefault(type) }
    }

    private func checkDefault<M: WireMessage>(_ type: M.Type) throws {
        let empty = M()
        XCTAssertEqual(empty.encode(), [], "\(M.protoName)")
        XCTAssertEqual(try M(decoding: []), empty, "\(M.protoName)")
    }

    func testMaximalValuesRoundTripByteForByte() throws {
        for type in MessageTypes.all { try checkMaximal(type) }
    }

    private func checkMaximal<M: WireMessage>(_ type: M.Type) throws {
        for choice in 0..<MaximalEncoding.oneofChoices(M.descriptor) {
            let bytes = MaximalEncoding.bytes(M.descriptor, oneofChoice: choice)
            // The synthesized encoding is canonical: protobuf-c alone packs it back unchanged.
            XCTAssertEqual(rawProtobufC(M.descriptor, bytes), bytes, "\(M.protoName) choice \(choice)")
            let value = try M(decoding: bytes)
            if !bytes.isEmpty { XCTAssertNotEqual(value, M(), "\(M.protoName)") }
            XCTAssertEqual(value.encode(), bytes, "\(M.protoName) choice \(choice): every field survives")
            XCTAssertEqual(try M(decoding: value.encode()), value, "\(M.protoName)")
            var prefixed: [UInt8] = [9, 9]
            value.encode(appendingTo: &prefixed, lengthPrefixed: true)
            let n = bytes.count
            XCTAssertEqual(prefixed, [9, 9, UInt8(n >> 24), UInt8((n >> 16) & 0xff), UInt8((n >> 8) & 0xff), UInt8(n & 0xff)] + bytes)
        }
    }

    func testUnicodeRegisterDeviceRequest() throws {
        let request = RegisterDeviceRequest(
            application: "A1B2C-3D4E5",
            hwid: "设备-🚀-\u{10FFFF}",
            pushToken: String(repeating: "ab", count: 100),
            deviceType: .ios,
            language: "zh",
            timezone: -50400,
            userID: "Zoë e\u{301} ﷽",
            appVersion: "2.4.1",
            tags: [
                Tag(name: "名前", value: TagValue(kind: .stringValue("値 ✓"))),
                Tag(name: "n", value: TagValue(kind: .intValue(-42))),
                Tag(name: "b", value: TagValue(kind: .boolValue(false))),
                Tag(name: "l", value: TagValue(kind: .listValue(StringList(values: ["α", "", "γ"])))),
                Tag(name: "d", value: TagValue(kind: .dateValue(1_700_000_000))),
                Tag(name: "empty-value"),
            ],
            knownCategoriesVersion: .max
        )
        let decoded = try RegisterDeviceRequest(decoding: request.encode())
        XCTAssertEqual(decoded, request)
        XCTAssertEqual(decoded.tags[2].value?.kind, .boolValue(false), "a oneof member at its default is still present")
        XCTAssertNil(decoded.tags[5].value, "an absent submessage stays absent")
    }

    static func button(_ b: Int) -> Button {
        var button = Button(id: UInt32(b), label: "Button \(b)")
        button.localizedLabels = [LocalizedText(language: "fr", text: "Bouton \(b) é")]
        button.destructive = b == 3
        button.startApplication = b == 0
        button.authenticationRequired = b == 1
        button.behavior = b == 2 ? .textInput : .default
        if b == 2 {
            button.textInputButtonTitle = "Send"
            button.textInputPlaceholder = "Type…"
        }
        return button
    }

    func testResponseWithCategoriesAndButtons() throws {
        var response = RegisterDeviceResponse(categoriesVersion: 7)
        for id in 1...3 {
            let buttons: [Button] = (0..<4).map(Self.button)
            response.iosCategories.append(Category(categoryID: UInt32(id), name: "Category \(id)", buttons: buttons))
        }
        let bytes = response.encode()
        XCTAssertEqual(try RegisterDeviceResponse(decoding: bytes), response)
        XCTAssertEqual(rawProtobufC(RegisterDeviceResponse.descriptor, bytes), bytes)
    }

    func testUnrecognizedEnumValuesSurvive() throws {
        let request = RegisterDeviceRequest(deviceType: .unrecognized(99))
        let decoded = try RegisterDeviceRequest(decoding: request.encode())
        XCTAssertEqual(decoded.deviceType, .unrecognized(99))
        XCTAssertEqual(decoded.deviceType.rawValue, 99)
        let negative = HealthCheckResponse(status: .unrecognized(-7))
        XCTAssertEqual(try HealthCheckResponse(decoding: negative.encode()).status.rawValue, -7)
        let targeting = Targeting(platforms: [.ios, .unrecognized(1000), .huawei])
        XCTAssertEqual(try Targeting(decoding: targeting.encode()).platforms, targeting.platforms)
    }

    func testUnpackedRepeatedScalarsAreAccepted() throws {
        // protobuf-c packs proto3 repeated scalars, but peers may send them one by one.
        let unpacked = key(3, 0) + [1] + key(3, 0) + [3]
        let targeting = try Targeting(decoding: unpacked)
        XCTAssertEqual(targeting.platforms, [.ios, .android])
        XCTAssertEqual(targeting.encode(), lengthDelimited(3, [1, 3]))
    }

    func testUnknownFieldsAreSkipped() throws {
        let unknown = key(99, 0) + varint(5) + key(98, 1) + [UInt8](repeating: 1, count: 8)
            + key(97, 5) + [1, 2, 3, 4] + lengthDelimited(96, [0xff, 0x00])
        let ping = try Ping(decoding: unknown + key(1, 0) + varint(77))
        XCTAssertEqual(ping.payload, 77)
    }

    func testEncodingAppendsToExistingBytes() {
        var buffer: [UInt8] = [1, 2, 3]
        Ping(payload: 1).encode(appendingTo: &buffer, lengthPrefixed: false)
        Pong(payload: 2).encode(appendingTo: &buffer, lengthPrefixed: true)
        XCTAssertEqual(buffer, [1, 2, 3, 0x08, 1, 0, 0, 0, 2, 0x08, 2])
    }
}
