import Foundation
import PushwireWire
import XCTest
@testable import PushwireService

/// The stored form of a message (MessageSpecJSON, written by hand for CreateMessage's speed)
/// reads back to the same spec, has the shape `JSONEncoder` gave it, and text older binaries
/// stored still reads.
final class MessagesSpecEncodingTests: XCTestCase {
    static func specs() throws -> [MessageSpec] {
        var full = note("Body \"quoted\" \\ back\nslash\t😀 /")
        full.title = "Title\u{1}"
        full.subtitle = "Sub"
        full.iosCategoryID = 65
        full.iosSound = "ping.caf"
        full.iosThreadID = "thread/1"
        full.iosInterruptionLevel = .timeSensitive
        full.iosTTL = 3600
        full.iosCollapseID = "collapse"
        full.data = #"{"z": [1, 2.5, {"k": null}], "a": "x\u00e9", "m": true}"#
        full.localizedContent = [localized("de", "Hallo"), localized("fr", "Salut \"toi\"")]
        full.localizedTitle = [localized("de", "Titel")]
        var badge = Badge()
        badge.change = .increment(-2)
        full.iosBadge = badge
        var set = note("set")
        var setBadge = Badge()
        setBadge.change = .set(7)
        set.iosBadge = setBadge
        return try [note("plain"), full, set].map {
            try MessageValidation.check($0, index: 0, categories: [MessagesRenderingTests.yes], nowMS: 1_800_000_000_000).spec
        }
    }

    func testRoundTripAndJSONEncoderShape() async throws {
        for spec in try Self.specs() {
            let text = MessageSpecJSON.encode(spec)
            XCTAssertEqual(MessageSpecJSON.decode(text), spec, text)
            // The same JSON value as JSONEncoder's (keys, nesting, numbers), so either binary reads either.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let reference = try encoder.encode(spec)
            let ours = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
            let theirs = try XCTUnwrap(JSONSerialization.jsonObject(with: reference) as? NSDictionary)
            XCTAssertEqual(ours, theirs, text)
            XCTAssertEqual(MessageSpecJSON.decode(String(decoding: reference, as: UTF8.self)), spec)
        }
    }

    func testEqualSpecsAreEqualText() async throws {
        let spec = try Self.specs()[1]
        var reordered = spec
        // Rebuilt dictionaries may iterate in another order; the text must not depend on it.
        reordered.localized = Dictionary(uniqueKeysWithValues: spec.localized.sorted { $0.key > $1.key })
        XCTAssertEqual(MessageSpecJSON.encode(spec), MessageSpecJSON.encode(reordered))
    }
}
