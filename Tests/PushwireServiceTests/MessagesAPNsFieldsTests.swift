import Foundation
import PushwireWire
import XCTest
@testable import PushwireService

/// APNs beyond the alert (issue 18, item 3): push types, mutable-content, priority, relevance
/// score, filter criteria, target content id — validated at CreateMessage, golden payloads, and
/// the stored spec.
final class MessagesAPNsFieldsTests: XCTestCase {
    func check(_ n: PushwireWire.Notification) throws -> MessageSpec {
        try MessageValidation.check(n, index: 0, categories: [MessagesRenderingTests.yes], nowMS: 1_800_000_000_000).spec
    }

    private func render(_ spec: MessageSpec) -> String {
        String(decoding: PayloadRenderer.render(spec, texts: spec.texts(language: "en"), badge: spec.badge(after: 0),
                                                messageCode: "ABCDE-12345678-9ABCDEF0"), as: UTF8.self)
    }

    func testGoldenBackgroundPayload() throws {
        var n = note("")
        n.iosPushType = .background
        n.data = #"{"sync": "inbox"}"#
        let spec = try check(n)
        XCTAssertEqual(render(spec), #"{"aps":{"content-available":1},"sync":"inbox","pw_msg":"ABCDE-12345678-9ABCDEF0"}"#)
        XCTAssertEqual(spec.priority, 5, "background pushes go at priority 5")
        let android = FCMPayloadRenderer.render(spec, texts: spec.texts(language: "en"), language: "en", messageCode: "ABCDE-12345678-9ABCDEF0")
        XCTAssertEqual(String(decoding: android, as: UTF8.self),
                       #"{"data":{"sync":"inbox","pw_msg":"ABCDE-12345678-9ABCDEF0"},"android":{"priority":"NORMAL"}}"#)
    }

    func testGoldenAlertWithEveryAPNsField() throws {
        var n = note("Photo")
        n.iosMutableContent = true
        n.iosPriority = 1
        n.iosRelevanceScore = 0.75
        n.iosFilterCriteria = "work"
        n.iosTargetContentID = "album-7"
        n.iosInterruptionLevel = .active
        n.data = #"{"image_url": "https://example.com/a.jpg"}"#
        let spec = try check(n)
        XCTAssertEqual(render(spec), #"{"aps":{"alert":{"body":"Photo"},"interruption-level":"active","relevance-score":0.75,"filter-criteria":"work","target-content-id":"album-7","mutable-content":1},"image_url":"https://example.com/a.jpg","pw_msg":"ABCDE-12345678-9ABCDEF0"}"#)
        XCTAssertEqual(spec.priority, 1)
        var full = n
        full.iosRelevanceScore = 1
        full.iosPriority = 0
        XCTAssertTrue(render(try check(full)).contains(#""relevance-score":1,"#))
        XCTAssertEqual(try check(full).priority, 10)
        var passive = note("quiet")
        passive.iosInterruptionLevel = .passive
        XCTAssertEqual(try check(passive).priority, 5)
    }

    func testInvalidAPNsFieldsAreRefusedWithTheField() throws {
        func refused(_ change: (inout PushwireWire.Notification) -> Void, _ fragment: String) {
            var n = note("x")
            change(&n)
            XCTAssertThrowsError(try check(n)) { error in
                XCTAssertEqual((error as? RPCError)?.code, .invalidArgument)
                XCTAssertTrue("\(error)".contains(fragment), "\(error) should name \(fragment)")
            }
        }
        refused({ $0.iosPushType = .background }, "may not have content")
        refused({ $0.content = ""; $0.iosPushType = .background; $0.title = "t" }, "may not have title")
        refused({ $0.content = ""; $0.iosPushType = .background; $0.iosSound = "default" }, "may not have ios_sound")
        refused({ $0.content = ""; $0.iosPushType = .background; var b = Badge(); b.change = .set(1); $0.iosBadge = b }, "may not have ios_badge")
        refused({ $0.content = ""; $0.iosPushType = .background; $0.iosCategoryID = 65 }, "may not have ios_category_id")
        refused({ $0.content = ""; $0.iosPushType = .background; $0.iosPriority = 10 }, "sent at priority 5")
        refused({ $0.iosPushType = ApnsPushType(rawValue: 9) }, "ios_push_type 9")
        refused({ $0.iosPriority = 7 }, "ios_priority 7")
        refused({ $0.iosRelevanceScore = 1.5 }, "ios_relevance_score")
        refused({ $0.iosRelevanceScore = -0.1 }, "ios_relevance_score")
        refused({ $0.iosRelevanceScore = .nan }, "ios_relevance_score")
        refused({ $0.iosFilterCriteria = String(repeating: "f", count: 257) }, "ios_filter_criteria")
        refused({ $0.iosTargetContentID = String(repeating: "t", count: 257) }, "ios_target_content_id")
        refused({ $0.content = "" }, "content is empty")
    }

    func testTheNewFieldsRoundTripThroughTheStoredSpec() throws {
        var alert = note("Photo")
        alert.iosMutableContent = true
        alert.iosPriority = 1
        alert.iosRelevanceScore = 0.3
        alert.iosFilterCriteria = "work \"team\""
        alert.iosTargetContentID = "album-7"
        var background = note("")
        background.iosPushType = .background
        for spec in [try check(alert), try check(background), try check(note("plain"))] {
            let text = MessageSpecJSON.encode(spec)
            XCTAssertEqual(MessageSpecReader.read(text), spec, "the fast reader reads it: \(text)")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let reference = try encoder.encode(spec)
            XCTAssertEqual(try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary),
                           try XCTUnwrap(JSONSerialization.jsonObject(with: reference) as? NSDictionary), text)
        }
        XCTAssertFalse(MessageSpecJSON.encode(try check(note("plain"))).contains("background"),
                       "a notification without the new fields is stored as before")
    }
}
