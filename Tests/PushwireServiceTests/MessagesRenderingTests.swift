import PushwireDelivery
import PushwireWire
import XCTest
@testable import PushwireService

/// Golden payloads, byte for byte, and the 4096-byte limit.
final class MessagesRenderingTests: XCTestCase {
    static let yes = { var c = Category(); c.categoryID = 65; c.name = "YesNo"; c.buttons = [makeButton(0, "Yes"), makeButton(1, "No")]; return c }()

    func spec(_ n: PushwireWire.Notification) throws -> MessageSpec {
        try MessageValidation.check(n, index: 0, categories: [Self.yes], nowMS: 1_800_000_000_000).spec
    }

    func testGoldenPayloadEveryField() async throws {
        var n = note("Body \"q\"\n")
        n.title = "Hi"
        n.subtitle = "Sub"
        n.iosCategoryID = 65
        var badge = Badge()
        badge.change = .set(3)
        n.iosBadge = badge
        n.iosSound = "default"
        n.iosThreadID = "t1"
        n.iosInterruptionLevel = .timeSensitive
        n.data = #"{ "b": 1, "a": {"x": [1, 2.5e3], "s": "é\u00e9"} }"#
        let spec = try spec(n)
        let payload = PayloadRenderer.render(spec, texts: spec.texts(language: "en"), badge: spec.badge(after: 7), messageCode: "ABCDE-12345678-9ABCDEF0")
        XCTAssertEqual(String(decoding: payload, as: UTF8.self),
                       #"{"aps":{"alert":{"title":"Hi","subtitle":"Sub","body":"Body \"q\"\n"},"badge":3,"sound":"default","thread-id":"t1","category":"65","interruption-level":"time-sensitive"},"a":{"x":[1,2.5e3],"s":"é\u00e9"},"b":1,"pw_msg":"ABCDE-12345678-9ABCDEF0"}"#)
    }

    func testGoldenPayloadMinimalAndLocalized() async throws {
        var n = note("Hello")
        n.localizedContent = [localized("de", "Hallo")]
        n.title = "Title"
        n.localizedTitle = [localized("fr", "Titre")]
        var badge = Badge()
        badge.change = .increment(2)
        n.iosBadge = badge
        let spec = try spec(n)
        func render(_ language: String, _ badge: Int64?) -> String {
            String(decoding: PayloadRenderer.render(spec, texts: spec.texts(language: language), badge: badge, messageCode: "C"), as: UTF8.self)
        }
        XCTAssertEqual(render("de", spec.badge(after: 1)), #"{"aps":{"alert":{"title":"Title","body":"Hallo"},"badge":3},"pw_msg":"C"}"#)
        XCTAssertEqual(render("fr", spec.badge(after: -5)), #"{"aps":{"alert":{"title":"Titre","body":"Hello"},"badge":0},"pw_msg":"C"}"#)
        // A language without translations falls back to the default texts.
        XCTAssertEqual(render("ja", nil), #"{"aps":{"alert":{"title":"Title","body":"Hello"}},"pw_msg":"C"}"#)
        XCTAssertEqual(spec.variant(language: "ja"), "")
    }

    func testPayloadLimitRejectsOrTrimsOnUTF8Boundary() async throws {
        let long = String(repeating: "é", count: 3000)  // 6000 bytes
        XCTAssertThrowsError(try spec(note(long))) { error in
            XCTAssertEqual((error as? RPCError)?.code, .invalidArgument)
            XCTAssertTrue((error as? RPCError)?.message.contains("4096") ?? false, "\(error)")
        }
        var n = note("ok")
        n.localizedContent = [localized("de", long)]
        XCTAssertThrowsError(try spec(n)) { error in
            XCTAssertTrue((error as? RPCError)?.message.contains("language de") ?? false, "\(error)")
        }
        n.trimToFit = true
        var badge = Badge()
        badge.change = .increment(1)
        n.iosBadge = badge
        let trimmed = try spec(n)
        let body = trimmed.texts(language: "de").body
        XCTAssertTrue(body.allSatisfy { $0 == "é" })
        XCTAssertGreaterThan(body.utf8.count, 3900)
        // The widest badge and a real code still fit.
        let payload = PayloadRenderer.render(trimmed, texts: trimmed.texts(language: "de"), badge: Int64(UInt32.max), messageCode: MessageCodes.make())
        XCTAssertLessThanOrEqual(payload.count, NotificationLimits.maxPayloadBytes)
        // Trimmed to fit the Android message of the same texts as well (`"android":{…}` makes it
        // a few bytes longer than the APNs payload), so a little under the APNs limit.
        XCTAssertGreaterThan(payload.count, NotificationLimits.maxPayloadBytes - 16)
        XCTAssertEqual(trimmed.texts(language: "en").body, "ok")

        var huge = note("x")
        huge.title = String(repeating: "t", count: 5000)
        huge.trimToFit = true
        XCTAssertThrowsError(try spec(huge)) { error in
            XCTAssertTrue((error as? RPCError)?.message.contains("even with an empty body") ?? false, "\(error)")
        }
    }

    func testCustomDataMustBeAnObject() async throws {
        for bad in ["[1]", "42", #"{"a":}"#, #"{"a":1,}"#, #"{"aps":1}"#, #"{"pw_msg":"x"}"#, #"{"a":1,"a":2}"#, "{} x"] {
            var n = note("x")
            n.data = bad
            XCTAssertThrowsError(try spec(n), bad) { XCTAssertEqual(($0 as? RPCError)?.code, .invalidArgument, bad) }
        }
    }

    func testMessageCodeShape() async {
        let code = MessageCodes.make()
        XCTAssertEqual(code.count, MessageCodes.length)
        XCTAssertEqual(code.split(separator: "-").map(\.count), [5, 8, 8])
        XCTAssertTrue(code.utf8.allSatisfy { Array("0123456789ABCDEF-".utf8).contains($0) }, code)
        // 64 random bits: over a few hundred codes every digit shows up in every position of the
        // last two groups.
        let many = (0..<400).map { _ in MessageCodes.make() }
        for position in 6..<MessageCodes.length where position != 14 {
            XCTAssertEqual(Set(many.map { Array($0.utf8)[position] }).count, 16, "position \(position)")
        }
        XCTAssertNotEqual(code, MessageCodes.make())
        // The first group is the clock: codes made one after the other share it or count up (by
        // far less than a second's 64 ticks), modulo its wrap, so that they sort together.
        let ticks = many.map { UInt64($0.prefix(5), radix: 16) ?? .max }
        XCTAssertFalse(ticks.contains(.max))
        for (earlier, later) in zip(ticks, ticks.dropFirst()) {
            XCTAssertLessThan((later &+ MessageCodes.clockTicks &- earlier) % MessageCodes.clockTicks, 64, "\(earlier) → \(later)")
        }
        let sinceLast = ticks.last.map { (MessageCodes.currentTick() &+ MessageCodes.clockTicks &- $0) % MessageCodes.clockTicks }
        XCTAssertLessThan(sinceLast ?? .max, 64)
    }
}
