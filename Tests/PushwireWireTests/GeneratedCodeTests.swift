import CProtobufC
import XCTest
@testable import PushwireWire

/// The generated API has the agreed names and matches protobuf-c's descriptors.
final class GeneratedCodeTests: XCTestCase {
    func testNamesFollowTheAgreedStyle() {
        var frame = Frame(callID: 3, kind: .goAway(GoAway(lastCallID: 2, status: Status(code: 0, message: "bye"))))
        frame.callID = 4
        if case .goAway(let goAway)? = frame.kind { XCTAssertEqual(goAway.lastCallID, 2) } else { XCTFail("kind") }
        let request = Request(method: "/pushwire.v1.Health/Check", timeoutMS: 10)
        XCTAssertEqual(request.timeoutMS, 10)
        let settings = Settings(maxFrameSize: 1 << 22, maxConcurrentCalls: 1024, serverName: "pushwired",
                                serverVersion: "0.1.0", protocolVersion: 1, idleTimeoutMS: 0)
        XCTAssertEqual(settings.maxFrameSize, 1 << 22)
        let targeting = Targeting(devices: ["h"], userIDs: ["u"], platforms: [.ios], conditions: [
            TagCondition(tag: "age", operator: .between, values: [TagValue(kind: .intValue(1)), TagValue(kind: .intValue(2))]),
        ])
        XCTAssertEqual(targeting.conditions.first?.operator, .between)
        let notification = Notification(iosCategoryID: 65, iosBadge: Badge(change: .increment(-1)), iosTTL: 60, iosThreadID: "t")
        XCTAssertEqual(notification.iosCategoryID, 65)
        let update = TagUpdate(name: "n", operation: .remove(true))
        XCTAssertEqual(update.operation, .remove(true))
    }

    func testEnumCases() {
        XCTAssertEqual(DeviceType.ios.rawValue, 1)
        XCTAssertEqual(DeviceType.windowsPhone.rawValue, 5)
        XCTAssertEqual(DeviceType.huawei.rawValue, 17)
        XCTAssertEqual(DeviceType(), .unspecified)
        XCTAssertEqual(DeviceType(rawValue: 3), .android)
        XCTAssertEqual(DeviceType(rawValue: 4), .unrecognized(4))
        XCTAssertEqual(DeviceType.unrecognized(1), .ios, "equality is by wire value")
        XCTAssertEqual(Set([DeviceType.unrecognized(1), .ios]).count, 1)
        XCTAssertEqual(DeviceType.allCases.count, 12)
        XCTAssertEqual(ServingStatus.serviceUnknown.rawValue, 3)
        XCTAssertEqual(ButtonBehavior.default.rawValue, 1)
        XCTAssertEqual(ConditionOperator.in.rawValue, 2)
        XCTAssertEqual(InterruptionLevel.timeSensitive.rawValue, 3)
        XCTAssertEqual(ApnsEnvironment.production.rawValue, 2)
        XCTAssertEqual(MessageStatus.cancelled.rawValue, 4)
        XCTAssertEqual(ActionKind.button.rawValue, 2)
    }

    func testMethods() {
        XCTAssertEqual(Methods.Devices.registerDevice.path, "/pushwire.v1.Devices/RegisterDevice")
        XCTAssertEqual(Methods.Health.check.path, "/pushwire.v1.Health/Check")
        XCTAssertEqual(Methods.Reflection.listMethods.path, "/pushwire.v1.Reflection/ListMethods")
        XCTAssertEqual(Methods.Admin.all.count, 3)
        XCTAssertEqual(Methods.Devices.all.count, 7)  // 7: SetBadge (issue 19)
        XCTAssertEqual(Methods.Messages.all.count, 7)  // 7: ListMessages, CountTargets, PreviewNotification, GetDevice (issue 20)
        XCTAssertEqual(Methods.all.count, 22)
        XCTAssertEqual(Set(Methods.all.map(\.path)).count, 22)
        for method in Methods.all {
            XCTAssertTrue(method.requestType.protoName.hasPrefix("pushwire.v1."))
            XCTAssertTrue(method.responseType.protoName.hasSuffix("Response"), method.path)
        }
        let check = Methods.all.first { $0.path == "/pushwire.v1.Health/Check" }
        XCTAssertTrue(check?.requestType == HealthCheckRequest.self)
    }

    func testDescriptorsMatchProtoNames() {
        for type in MessageTypes.all {
            let descriptor = type.descriptor.pointee
            XCTAssertEqual(descriptor.magic, UInt32(PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC))
            XCTAssertEqual(String(cString: descriptor.name), type.protoName)
        }
    }

    func testNULInAStringIsCutWhenEncoding() throws {
        // protobuf-c strings are C strings: documented in WireCodec.swift.
        let metadata = Metadata(key: "a\0b", value: "v")
        XCTAssertEqual(try Metadata(decoding: metadata.encode()).key, "a")
    }
}
