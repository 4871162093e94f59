import PushwireWire
import XCTest
@testable import PushwireService

final class MessagesTapsTests: XCTestCase {
    func track(_ h: MessagesHarness, _ app: String, _ hwid: String, _ code: String, _ kind: ActionKind,
               category: UInt32 = 0, button: UInt32 = 0) async throws -> Bool {
        var request = TrackActionRequest()
        request.application = app
        request.hwid = hwid
        request.messageCode = code
        request.kind = kind
        request.categoryID = category
        request.buttonID = button
        return try await h.messages.trackAction(request).recorded
    }

    func testTapsCountedPerButtonIdempotentAndIsolated() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        let yesNo = try await unwrap(try await h.base.registry.categories(code: app.code).categories.first)
        for hwid in ["a", "b", "c"] { try await h.register(app.code, hwid) }
        var n = note("Coffee?")
        n.iosCategoryID = yesNo.categoryID
        let code = try await h.create(n, token: app.token).messageCodes[0]
        await h.send()
        XCTAssertEqual(try h.sinkLines().first?.aps["category"] as? String, String(yesNo.categoryID))

        let r1 = try await track(h, app.code, "a", code, .button, category: yesNo.categoryID, button: 0)
        XCTAssertTrue(r1)
        let r2 = try await track(h, app.code, "a", code, .button, category: yesNo.categoryID, button: 0)
        XCTAssertFalse(r2, "a retry is recorded once")
        let r3 = try await track(h, app.code, "b", code, .button, category: yesNo.categoryID, button: 0)
        XCTAssertTrue(r3)
        let r4 = try await track(h, app.code, "c", code, .button, category: yesNo.categoryID, button: 1)
        XCTAssertTrue(r4)
        let r5 = try await track(h, app.code, "a", code, .open)
        XCTAssertTrue(r5)
        let r6 = try await track(h, app.code, "a", code, .open)
        XCTAssertFalse(r6)

        await assertRPCError(.invalidArgument, "button_id 7") { try await self.track(h, app.code, "a", code, .button, category: yesNo.categoryID, button: 7) }
        await assertRPCError(.invalidArgument, "category_id") { try await self.track(h, app.code, "a", code, .button, category: 12345, button: 0) }
        await assertRPCError(.invalidArgument, "kind") { try await self.track(h, app.code, "a", code, .unspecified) }
        await assertRPCError(.notFound, "message") { try await self.track(h, app.code, "a", "NOPE", .open) }
        await assertRPCError(.notFound, "device") { try await self.track(h, app.code, "zz", code, .open) }

        let details = try await h.details(code, token: app.token)
        XCTAssertEqual(details.opened, 1)
        XCTAssertEqual(details.taps.map(\.buttonID), [0, 1])
        XCTAssertEqual(details.taps.map(\.label), yesNo.buttons.map(\.label))
        XCTAssertEqual(details.taps.map(\.count), [2, 1])
        XCTAssertEqual(details.iosCategoryID, yesNo.categoryID)

        // Another application sees neither the message nor its devices.
        let other = try await h.base.createApplication("other")
        try await h.register(other.code, "a")
        await assertRPCError(.notFound) { try await h.details(code, token: other.token) }
        await assertRPCError(.notFound, "message") { try await self.track(h, other.code, "a", code, .open) }
        let everyone = try await h.create(note("hi all"), token: other.token).messageCodes[0]
        await h.send()
        XCTAssertEqual(try h.sinkLines().filter { $0.messageCode == everyone }.count, 1, "only the other app's one device")
    }

    func testTapOnMessageWithoutCategoryIsRejected() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        try await h.register(app.code, "a")
        let code = try await h.create(note("plain"), token: app.token).messageCodes[0]
        await assertRPCError(.invalidArgument, "no category") { try await self.track(h, app.code, "a", code, .button, category: 1, button: 0) }
    }
}
