import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

/// `ApplicationDirectory.encodedResponses` answers from its last lookup only while nothing
/// changed: every answer is the one the table holds now, across applications and changes.
final class ApplicationDirectoryEncodedTests: XCTestCase {
    private static func record(_ id: Int64, _ code: String) -> ApplicationRecord {
        ApplicationRecord(id: id, code: code, name: code, accessTokenHash: Array(repeating: UInt8(id), count: 32), apns: nil,
                          categoriesVersion: 1, createdAt: 0)
    }

    private static func categories(_ name: String) -> [PushwireWire.Category] {
        [PushwireWire.Category(categoryID: 1, name: name, buttons: [Button(id: 1, label: "OK")])]
    }

    func testEveryAnswerIsCurrent() {
        let directory = ApplicationDirectory(applications: [Self.record(1, "AAAAA-11111"), Self.record(2, "BBBBB-22222")])
        XCTAssertNil(directory.encodedResponses(code: "AAAAA-11111"), "no categories cached yet")
        directory.cache(code: "AAAAA-11111", categories: Self.categories("a1"), version: 1)
        directory.cache(code: "BBBBB-22222", categories: Self.categories("b1"), version: 1)
        let a1 = directory.encodedResponses(code: "AAAAA-11111")
        XCTAssertNotNil(a1)
        XCTAssertTrue(directory.encodedResponses(code: "AAAAA-11111") === a1, "asked again")
        let b1 = directory.encodedResponses(code: "BBBBB-22222")
        XCTAssertNotNil(b1)
        XCTAssertFalse(b1 === a1)
        XCTAssertTrue(directory.encodedResponses(code: "AAAAA-11111") === a1, "after another application")
        XCTAssertNil(directory.encodedResponses(code: "CCCCC-33333"), "unknown")

        // A change drops A's cached list: its answer is gone, not the one asked for last.
        XCTAssertTrue(directory.encodedResponses(code: "AAAAA-11111") === a1)
        directory.categoriesChanged(code: "AAAAA-11111", version: 2)
        XCTAssertNil(directory.encodedResponses(code: "AAAAA-11111"))
        XCTAssertTrue(directory.encodedResponses(code: "BBBBB-22222") === b1, "B unchanged")

        // The new list cached: A's answer is the new one, with its version.
        directory.cache(code: "AAAAA-11111", categories: Self.categories("a2"), version: 2)
        let a2 = directory.encodedResponses(code: "AAAAA-11111")
        XCTAssertNotNil(a2)
        XCTAssertFalse(a2 === a1)
        XCTAssertEqual(a2?.version, 2)
        XCTAssertTrue(directory.encodedResponses(code: "AAAAA-11111") === a2)
    }
}
