import PushwireWire
import XCTest
@testable import PushwireService

/// The RegisterDevice fast path reads requests with its own scanner: it must read exactly what the
/// regular decoder reads, and refuse (send to the regular path) everything it does not handle.
final class RegisterDeviceScannerTests: XCTestCase {
    private func scan(_ bytes: [UInt8]) -> RegisterDeviceRequest? {
        bytes.withUnsafeBytes { RegisterDeviceScanner.scan($0) }
    }

    func testReadsWhatTheRegularDecoderReads() async throws {
        let requests = [
            RegisterDeviceRequest(application: "A1B2C-3D4E5", hwid: "hw-1", pushToken: String(repeating: "ab", count: 32),
                                  deviceType: .ios, language: "en", timezone: 3600, userID: "u1", appVersion: "2.4.1",
                                  knownCategoriesVersion: 7),
            // Negative int32 (a 10-byte varint), an unknown device type, empty and default fields.
            RegisterDeviceRequest(application: "A1B2C-3D4E5", hwid: "x", deviceType: DeviceType(rawValue: 99), timezone: -50400),
            RegisterDeviceRequest(),
        ]
        for request in requests {
            let bytes = request.encode()
            let regular = try bytes.withUnsafeBytes { try RegisterDeviceRequest(decoding: $0) }
            XCTAssertEqual(scan(bytes), regular)
            XCTAssertEqual(scan(bytes), request)
        }
    }

    func testRefusesWhatItDoesNotHandle() async {
        // Non-ASCII text: the regular decoder checks UTF-8.
        XCTAssertNil(scan(RegisterDeviceRequest(application: "A1B2C-3D4E5", hwid: "hé").encode()))
        XCTAssertNil(scan([0x12, 0x02, 0xC3, 0x28]))  // invalid UTF-8 in hwid
        // Tags.
        var tagged = RegisterDeviceRequest(application: "A1B2C-3D4E5", hwid: "d")
        var tag = Tag()
        tag.name = "plan"
        tagged.tags = [tag]
        XCTAssertNil(scan(tagged.encode()))
        // A field twice, an unknown field, a wrong wire type, truncated text.
        XCTAssertNil(scan([0x12, 0x01, 0x61, 0x12, 0x01, 0x62]))
        XCTAssertNil(scan([0x12, 0x01, 0x61, 0x58, 0x01]))  // field 11
        XCTAssertNil(scan([0x20, 0x01, 0x32, 0x00]))  // timezone (an int32) sent as bytes
        XCTAssertNil(scan([0x12, 0x05, 0x61]))
    }
}

/// The language check's table agrees with the list it is built from, for every two-letter string.
final class LanguageCheckTests: XCTestCase {
    func testTableAgreesWithTheList() async {
        let letters = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) }
        for first in letters {
            for second in letters {
                let code = String([first, second])
                XCTAssertEqual(DeviceValidation.isLanguageCode(code), LanguageCodes.isValid(code), code)
            }
        }
        for code in ["", "e", "eng", "EN", "en-US", "é"] {
            XCTAssertEqual(DeviceValidation.isLanguageCode(code), LanguageCodes.isValid(code), code)
        }
    }
}
