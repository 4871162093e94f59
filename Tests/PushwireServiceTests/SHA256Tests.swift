import Foundation
import XCTest
@testable import PushwireService

final class SHA256Tests: XCTestCase {
    func testKnownVectors() async {
        XCTAssertEqual(hexString(SHA256.hash("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hexString(SHA256.hash("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hexString(SHA256.hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(hexString(SHA256.hash(Array(repeating: UInt8(ascii: "a"), count: 1_000_000))),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testCredentialsShape() async {
        let code = Credentials.newApplicationCode()
        XCTAssertEqual(code.count, 11)
        XCTAssertEqual(Array(code)[5], "-")
        XCTAssertTrue(code.replacingOccurrences(of: "-", with: "").allSatisfy { $0.isUppercase || $0.isNumber })
        let token = Credentials.newAccessToken()
        XCTAssertEqual(token.count, 64)
        XCTAssertTrue(token.allSatisfy(\.isHexDigit))
        XCTAssertNotEqual(token, Credentials.newAccessToken())
    }

    func testCallerFromMetadata() async {
        XCTAssertEqual(Caller(metadata: [("authorization", "Bearer abc"), ("application", "X")]),
                       Caller(bearerToken: "abc", applicationCode: "X"))
        // Keys are exact (docs/PROTOCOL.md): another spelling is an unknown key.
        XCTAssertEqual(Caller(metadata: [("Authorization", "Bearer abc"), ("Application", "X")]), Caller())
        XCTAssertEqual(Caller(metadata: [("authorization", "Basic abc")]), Caller())
        XCTAssertEqual(Caller(metadata: [("authorization", "Bearer ")]), Caller())
        XCTAssertEqual(Caller(metadata: [("authorization", "  bEaReR   tok en  ")]), Caller(bearerToken: "tok en"))
        XCTAssertEqual(Caller(metadata: [("authorization", "Bearer")]), Caller(), "no token after the scheme")
        XCTAssertEqual(Caller(metadata: [("authorization", "Bearerabc")]), Caller(), "no space after the scheme")
        XCTAssertEqual(Caller(metadata: [("authorization", "Bearers abc")]), Caller(), "another scheme")
        XCTAssertEqual(Caller(metadata: [("authorisation", "Bearer abc"), ("applications", "X")]), Caller(),
                       "other keys are ignored")
        XCTAssertEqual(Caller(metadata: [("application", "Ä1")]), Caller(applicationCode: "Ä1"))
        XCTAssertEqual(Caller(metadata: [("authorization", "Bearer é")]), Caller(bearerToken: "é"))
    }
}
