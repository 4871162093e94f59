import XCTest
import CProtobufC
import PushwireProtoC
@testable import PushwireJSONBridge

final class ProtoJSONTests: XCTestCase {
    private func descriptor(_ path: String) throws -> UnsafePointer<ProtobufCMessageDescriptor> {
        try XCTUnwrap(MethodCatalog.find(path)).requestDescriptor
    }

    /// A JSON value with every field set to a non-default value, in canonical proto3 JSON form.
    private func sample(_ message: MessageInfo, depth: Int = 0) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        var oneofsSet = Set<Int>()
        for (i, field) in message.fields.enumerated() {
            if field.isOneofMember {
                if oneofsSet.contains(field.quantifierOffset) { continue }
                oneofsSet.insert(field.quantifierOffset)
            }
            let value: JSONValue
            switch field.type {
            case PROTOBUF_C_TYPE_INT32, PROTOBUF_C_TYPE_SINT32, PROTOBUF_C_TYPE_SFIXED32: value = .number("-\(i + 3)")
            case PROTOBUF_C_TYPE_UINT32, PROTOBUF_C_TYPE_FIXED32: value = .number("\(i + 4000000000 - 4000000000 + 7)")
            case PROTOBUF_C_TYPE_INT64, PROTOBUF_C_TYPE_SINT64, PROTOBUF_C_TYPE_SFIXED64: value = .string("-9007199254740993")
            case PROTOBUF_C_TYPE_UINT64, PROTOBUF_C_TYPE_FIXED64: value = .string("18446744073709551615")
            case PROTOBUF_C_TYPE_FLOAT, PROTOBUF_C_TYPE_DOUBLE: value = .number("1.5")
            case PROTOBUF_C_TYPE_BOOL: value = .bool(true)
            case PROTOBUF_C_TYPE_ENUM: value = .string(field.enumInfo?.values.last?.name ?? "")
            case PROTOBUF_C_TYPE_STRING: value = .string("s\(i) ✓ \"q\"")
            case PROTOBUF_C_TYPE_BYTES: value = .string("AAEC/w==")
            case PROTOBUF_C_TYPE_MESSAGE:
                guard depth < 4, let sub = field.message else { continue }
                value = sample(sub, depth: depth + 1)
            default: continue
            }
            members.append((field.jsonName, field.isRepeated ? .array([value, value]) : value))
        }
        return .object(members)
    }

    func testEveryRequestAndResponseTypeRoundTrips() throws {
        XCTAssertGreaterThanOrEqual(MethodCatalog.all.count, 17)
        for method in MethodCatalog.all {
            for d in [method.requestDescriptor, method.responseDescriptor] {
                let json = sample(MessageInfo(descriptor: d))
                let bytes = try ProtoJSON.encode(json, as: d)
                let back = try ProtoJSON.decode(bytes, as: d)
                XCTAssertEqual(back, json, "\(method.path) \(String(cString: d.pointee.name)):\n\(ProtoJSON.serialize(json))\n≠\n\(ProtoJSON.serialize(back))")
                // And through text.
                let text = ProtoJSON.serialize(back, pretty: false)
                XCTAssertEqual(try ProtoJSON.decode(ProtoJSON.encode(text, as: d), as: d), json)
            }
        }
    }

    func testProto3Mapping() throws {
        let d = try descriptor("Devices/RegisterDevice")
        // Snake names, enums by short name or number, 64-bit integers as numbers are accepted on input.
        let bytes = try ProtoJSON.encode(#"{"push_token":"t","deviceType":"ios","knownCategoriesVersion":42,"timezone":"-3600"}"#, as: d)
        let out = try ProtoJSON.decode(bytes, as: d)
        XCTAssertEqual(out, .object([("pushToken", .string("t")), ("deviceType", .string("DEVICE_TYPE_IOS")),
                                     ("timezone", .number("-3600")), ("knownCategoriesVersion", .string("42"))]))
        let byNumber = try ProtoJSON.decode(ProtoJSON.encode(#"{"deviceType":3}"#, as: d), as: d)
        XCTAssertEqual(byNumber, .object([("deviceType", .string("DEVICE_TYPE_ANDROID"))]))
        // Defaults are left out; null means default.
        XCTAssertEqual(try ProtoJSON.decode(ProtoJSON.encode(#"{"hwid":"","language":null}"#, as: d), as: d), .object([]))
        // Output order follows field numbers, lowerCamel names.
        XCTAssertEqual(try ProtoJSON.decodeToString(bytes, as: d, pretty: false),
                       #"{"pushToken":"t","deviceType":"DEVICE_TYPE_IOS","timezone":-3600,"knownCategoriesVersion":"42"}"#)
    }

    func testBytesAsBase64() throws {
        let request = try XCTUnwrap(rpcRequestInfo())
        var encoded: [UInt8] = []
        // URL-safe and unpadded input is accepted; output is standard base64.
        try ProtoJSONEncoder.encode(.object([("message", .string("AAEC_w"))]), as: request, path: "", into: &encoded)
        XCTAssertEqual(encoded, [0x22, 4, 0, 1, 2, 255])
        XCTAssertEqual(try ProtoJSON.decode(encoded, as: request.descriptor), .object([("message", .string("AAEC/w=="))]))
        XCTAssertThrowsError(try ProtoJSON.encode(#"{"message":"%%%"}"#, as: request.descriptor))
    }

    /// `pushwire.v1.Request`, reached through `Frame.request`'s field descriptor so the pointer is
    /// protoc-c's static data rather than a copy.
    private func rpcRequestInfo() -> MessageInfo? {
        let fields = withUnsafePointer(to: pushwire__v1__frame__descriptor) { $0.pointee.fields! }
        for i in 0..<8 where String(cString: fields[i].name) == "request" {
            return FieldInfo(field: fields + i).message
        }
        return nil
    }

    func testErrorsNameTheProblem() throws {
        let d = try descriptor("Devices/RegisterDevice")
        XCTAssertThrowsError(try ProtoJSON.encode(#"{"hwidd":"x"}"#, as: d)) { error in
            XCTAssertEqual((error as? ProtoJSONError)?.message, #"unknown field "hwidd" in pushwire.v1.RegisterDeviceRequest"#)
        }
        XCTAssertThrowsError(try ProtoJSON.encode(#"{"tags":[{"nope":1}]}"#, as: d)) { error in
            XCTAssertTrue("\(error)".contains(#""tags[0].nope""#), "\(error)")
        }
        XCTAssertThrowsError(try ProtoJSON.encode(#"{"timezone":1.5}"#, as: d))
        XCTAssertThrowsError(try ProtoJSON.encode(#"{"timezone":3000000000}"#, as: d))
        XCTAssertThrowsError(try ProtoJSON.encode(#"{"deviceType":"PLAYSTATION"}"#, as: d))
        XCTAssertThrowsError(try ProtoJSON.encode(#"{"hwid":1}"#, as: d))
        XCTAssertThrowsError(try ProtoJSON.encode(#"{"hwid":"a","hwid":"b"}"#, as: d))
        XCTAssertThrowsError(try ProtoJSON.encode(#"{"hwid":"a",}"#, as: d))
        XCTAssertThrowsError(try ProtoJSON.encode(#"[1]"#, as: d))
        XCTAssertThrowsError(try ProtoJSON.decode([0xFF, 0xFF], as: d))
    }

    /// Found by the proto-json fuzz target (docs/FUZZING.md): the parser took `\u` escapes with a
    /// sign (`UInt32(_:radix:)` accepts one) and numbers with leading zeros, neither of them JSON.
    func testParserRefusesWhatIsNotJSON() {
        for text in [#"{"hwid":"\u+041"}"#, #"{"hwid":"\u-000"}"#, #"{"hwid":"\u 41a"}"#, #"{"timezone":01}"#, #"{"timezone":-00}"#, #"[00.5]"#] {
            XCTAssertThrowsError(try ProtoJSON.parse(text), text)
        }
        XCTAssertEqual(try ProtoJSON.parse(#"["\u0041\u00e9", 0, -0, 0.5, 10, -1e+3]"#),
                       .array([.string("Aé"), .number("0"), .number("-0"), .number("0.5"), .number("10"), .number("-1e+3")]))
    }

    func testOneofConflictIsRejected() throws {
        let setTags = try descriptor("Devices/SetTags")
        let ok = #"{"updates":[{"name":"n","set":{"intValue":"5"}},{"name":"m","increment":2}]}"#
        let out = try ProtoJSON.decodeToString(ProtoJSON.encode(ok, as: setTags), as: setTags, pretty: false)
        XCTAssertEqual(out, #"{"updates":[{"name":"n","set":{"intValue":"5"}},{"name":"m","increment":"2"}]}"#)
        // A oneof member at its default value is still present.
        XCTAssertEqual(try ProtoJSON.decodeToString(ProtoJSON.encode(#"{"updates":[{"remove":false}]}"#, as: setTags), as: setTags, pretty: false),
                       #"{"updates":[{"remove":false}]}"#)
        XCTAssertThrowsError(try ProtoJSON.encode(#"{"updates":[{"increment":1,"remove":true}]}"#, as: setTags)) { error in
            XCTAssertTrue("\(error)".contains("same oneof"), "\(error)")
        }
    }

    func testMethodLookupSpellings() {
        for name in ["/pushwire.v1.Devices/RegisterDevice", "pushwire.v1.Devices/RegisterDevice", "Devices/RegisterDevice", "pushwire.v1.Devices.RegisterDevice"] {
            XCTAssertEqual(MethodCatalog.find(name)?.path, "/pushwire.v1.Devices/RegisterDevice", name)
        }
        XCTAssertNil(MethodCatalog.find("Devices/Nope"))
        XCTAssertEqual(MethodCatalog.find("Health/Check")?.requestType, "pushwire.v1.HealthCheckRequest")
    }
}
