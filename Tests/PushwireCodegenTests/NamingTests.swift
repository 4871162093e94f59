import XCTest

@testable import pushwire_codegen

/// The names pushwire-codegen gives Swift and protoc-c symbols: a wrong one either fails to compile
/// against protoc-c's output or renames a public API, so each rule is pinned here.
final class NamingTests: XCTestCase {
    func testSnakeCaseBecomesCamelCaseWithAcronymsInCapitals() {
        XCTAssertEqual(Naming.lowerCamel("push_token"), "pushToken")
        XCTAssertEqual(Naming.lowerCamel("call_id"), "callID")
        XCTAssertEqual(Naming.lowerCamel("user_ids"), "userIDs")
        XCTAssertEqual(Naming.lowerCamel("timeout_ms"), "timeoutMS")
        XCTAssertEqual(Naming.lowerCamel("id"), "id", "an acronym first stays lower case")
        XCTAssertEqual(Naming.upperCamel("go_away"), "GoAway")
        XCTAssertEqual(Naming.lowerFirst("RegisterDevice"), "registerDevice")
    }

    func testSwiftKeywordsAreBacktickedAndCKeywordsSuffixed() {
        XCTAssertEqual(Naming.escaped("default"), "`default`")
        XCTAssertEqual(Naming.escaped("Type"), "`Type`")
        XCTAssertEqual(Naming.escaped("language"), "language")
        XCTAssertEqual(Naming.cMember("default"), "default_", "protoc-c suffixes C keywords")
        XCTAssertEqual(Naming.cMember("hwid"), "hwid")
    }

    func testProtocCNames() {
        XCTAssertEqual(Naming.cLower("RegisterDeviceRequest"), "register_device_request")
        XCTAssertEqual(Naming.upperSnake("DeviceType"), "DEVICE_TYPE")
        XCTAssertEqual(Naming.cType(package: "pushwire.v1", name: "Frame"), "Pushwire__V1__Frame")
        XCTAssertEqual(Naming.cFunctionPrefix(package: "pushwire.v1", name: "GoAway"), "pushwire__v1__go_away")
    }

    func testEnumCasesLoseTheirTypePrefix() {
        XCTAssertEqual(Naming.enumCase("DEVICE_TYPE_WINDOWS_PHONE", enumName: "DeviceType"), "windowsPhone")
        XCTAssertEqual(Naming.enumCase("DEVICE_TYPE_IOS", enumName: "DeviceType"), "ios")
        XCTAssertEqual(Naming.enumCase("OTHER_VALUE", enumName: "DeviceType"), "otherValue", "no prefix to strip")
        XCTAssertEqual(Naming.enumCase("LEVEL_2X", enumName: "Level"), "_2x", "a case cannot start with a digit")
    }

    func testDocCommentsKeepTheProtoCommentOrTheFallback() {
        XCTAssertEqual(DocComment.lines(" The device.\n Second line. \n", fallback: "x", indent: "    "),
                       "    /// The device.\n    /// Second line.\n")
        XCTAssertEqual(DocComment.lines(nil, fallback: "A frame.", indent: ""), "/// A frame.\n")
        XCTAssertEqual(DocComment.lines(" a\n\n b", fallback: "x", indent: ""), "/// a\n///\n/// b\n")
    }
}
