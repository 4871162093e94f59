import Foundation
import PushwireWire
import XCTest
@testable import PushwireService

/// The Android (FCM) message, byte for byte, and the category snapshot it is made from.
final class MessagesAndroidRenderingTests: XCTestCase {
    static let invite: PushwireWire.Category = {
        var yes = makeButton(0, "Yes")
        yes.startApplication = true
        yes.localizedLabels = [localized("fr", "Oui"), localized("de", "Ja")]
        var no = makeButton(1, "No")
        no.destructive = true
        var reply = makeButton(2, "Reply \"now\"")
        reply.behavior = .textInput
        reply.textInputButtonTitle = "Send"
        reply.textInputPlaceholder = "Say…"
        var category = PushwireWire.Category()
        category.categoryID = 66
        category.name = "Invite"
        category.buttons = [yes, no, reply]
        return category
    }()

    func spec(_ n: PushwireWire.Notification) throws -> MessageSpec {
        try MessageValidation.check(n, index: 0, categories: [Self.invite], nowMS: 1_800_000_000_000).spec
    }

    func testGoldenAndroidMessageEveryField() throws {
        var n = note("Body \"q\"")
        n.title = "Hi"
        n.subtitle = "Sub"
        n.localizedContent = [localized("fr", "Corps")]
        n.iosCategoryID = 66
        n.iosTTL = 600
        n.iosCollapseID = "c1"
        n.iosInterruptionLevel = .passive
        n.data = #"{"b": 1, "a": {"x": [1, 2]}, "s": "t\"x\u2028"}"#
        let spec = try spec(n)
        let french = FCMPayloadRenderer.render(spec, texts: spec.texts(language: "fr"), language: "fr", messageCode: "ABCDE-12345678-9ABCDEF0")
        XCTAssertEqual(String(decoding: french, as: UTF8.self),
                       #"{"data":{"a":"{\"x\":[1,2]}","b":"1","s":"t\"x\#u{2028}","pw_msg":"ABCDE-12345678-9ABCDEF0","pw_title":"Hi","pw_subtitle":"Sub","pw_body":"Corps","pw_category":"66","pw_buttons":"[{\"id\":\"0\",\"label\":\"Oui\",\"foreground\":true,\"destructive\":false,\"text_input\":false},{\"id\":\"1\",\"label\":\"No\",\"foreground\":false,\"destructive\":true,\"text_input\":false},{\"id\":\"2\",\"label\":\"Reply \\\"now\\\"\",\"foreground\":false,\"destructive\":false,\"text_input\":true,\"input_button_title\":\"Send\",\"placeholder\":\"Say…\"}]"},"android":{"priority":"NORMAL","ttl":"600s","collapse_key":"c1"}}"#)
        // What FCM gets parses, every data value a string, labels in the device's language.
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(french)) as? [String: Any])
        let data = try XCTUnwrap(object["data"] as? [String: String])
        let buttons = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(data["pw_buttons"]).utf8)) as? [[String: Any]])
        XCTAssertEqual(buttons.compactMap { $0["label"] as? String }, ["Oui", "No", "Reply \"now\""])
        let german = FCMPayloadRenderer.render(spec, texts: spec.texts(language: "de"), language: "de", messageCode: "ABCDE-12345678-9ABCDEF0")
        XCTAssertTrue(String(decoding: german, as: UTF8.self).contains(#"\"label\":\"Ja\""#), "German falls back to the default body but not label")
        XCTAssertTrue(String(decoding: german, as: UTF8.self).contains(#""pw_body":"Body \"q\"""#))
    }

    func testGoldenAndroidMessageMinimal() throws {
        let spec = try spec(note("Hello"))
        let message = FCMPayloadRenderer.render(spec, texts: spec.texts(language: "en"), language: "en", messageCode: "ABCDE-12345678-9ABCDEF0")
        XCTAssertEqual(String(decoding: message, as: UTF8.self),
                       #"{"data":{"pw_msg":"ABCDE-12345678-9ABCDEF0","pw_body":"Hello"},"android":{"priority":"HIGH"}}"#)
    }

    func testTheCategorySnapshotRoundTripsThroughTheStoredSpec() throws {
        var n = note("With buttons")
        n.iosCategoryID = 66
        let spec = try spec(n)
        XCTAssertEqual(spec.buttons?.map(\.label), ["Yes", "No", "Reply \"now\""])
        let text = MessageSpecJSON.encode(spec)
        XCTAssertEqual(MessageSpecReader.read(text), spec, "the fast reader reads the buttons: \(text)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let reference = try encoder.encode(spec)
        XCTAssertEqual(try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary),
                       try XCTUnwrap(JSONSerialization.jsonObject(with: reference) as? NSDictionary), "JSONEncoder's shape")
        XCTAssertEqual(MessageSpecJSON.decode(String(decoding: reference, as: UTF8.self)), spec)
    }

    func testPushwiresAndroidKeysAreReservedInData() {
        for key in ["pw_buttons", "pw_body", "pw_category"] {
            var n = note("x")
            n.data = #"{"\#(key)": "mine"}"#
            XCTAssertThrowsError(try spec(n)) { error in
                XCTAssertTrue("\(error)".contains("data may not use the key \"\(key)\""), "\(error)")
            }
        }
    }
}

/// The 4096-byte limit for the Android message, which carries the category's labels.
final class MessagesAndroidLimitTests: XCTestCase {
    /// A category whose German labels are long: the Android message in German is the widest.
    static let wordy: PushwireWire.Category = {
        var buttons: [Button] = []
        for id in 0..<4 {
            var button = makeButton(UInt32(id), "B\(id)")
            button.localizedLabels = [localized("de", String(repeating: "ä", count: 300))]
            buttons.append(button)
        }
        var category = PushwireWire.Category()
        category.categoryID = 67
        category.name = "Wordy"
        category.buttons = buttons
        return category
    }()

    private func check(_ n: PushwireWire.Notification) throws -> MessageSpec {
        try MessageValidation.check(n, index: 0, categories: [Self.wordy], nowMS: 1_800_000_000_000).spec
    }

    func testAnAndroidMessageOverTheLimitIsRefusedOrTrimmed() throws {
        // The APNs payload fits (about 1.8 KB); the German Android message (labels too) does not.
        var n = note(String(repeating: "x", count: 1800))
        n.iosCategoryID = 67
        XCTAssertThrowsError(try check(n)) { error in
            XCTAssertTrue("\(error)".contains("the Android message in language de would be"), "\(error)")
        }
        n.trimToFit = true
        let spec = try check(n)
        let german = FCMPayloadRenderer.render(spec, texts: spec.texts(language: "de"), language: "de", messageCode: "ABCDE-12345678-9ABCDEF0")
        XCTAssertLessThanOrEqual(german.count, 4096)
        XCTAssertGreaterThan(german.count, 4000, "trimmed just enough")
        XCTAssertEqual(spec.defaultTexts.body.count, 1800, "the other languages keep the whole body")
        XCTAssertLessThan(spec.texts(language: "de").body.count, 1800)
    }
}
