import PushwireWire
import XCTest
@testable import PushwireService

final class MessagesValidationTests: XCTestCase {
    func testClearInvalidArgumentMessages() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        func rejects(_ n: PushwireWire.Notification, _ containing: String) async {
            await assertRPCError(.invalidArgument, containing) { try await h.create(n, token: app.token) }
        }
        await rejects(note(""), "content is empty")
        var category = note("x")
        category.iosCategoryID = 999_999
        await rejects(category, "ios_category_id 999999")
        var past = note("x")
        past.sendAtMS = DeliveryPipeline.nowMS() - 120_000
        await rejects(past, "in the past")
        // How far ahead: a year is fine, INT64_MAX (or anything past 366 days) is refused.
        for sendAt in [Int64.max, DeliveryPipeline.nowMS() + MessageLimits.maxScheduleAheadMS + 60_000] {
            var far = note("x")
            far.sendAtMS = sendAt
            await rejects(far, "days ahead")
        }
        var nextYear = note("x")
        nextYear.sendAtMS = DeliveryPipeline.nowMS() + 365 * 86_400_000
        _ = try await h.create(nextYear, token: app.token)
        var data = note("x")
        data.data = "[1, 2]"
        await rejects(data, "JSON object")
        await rejects(note("x", devices: (0...1000).map { "d\($0)" }), "too many devices")
        await rejects(note("x", userIDs: (0...1000).map { "u\($0)" }), "too many user_ids")
        await rejects(note("x", conditions: [condition("age", .between, [.intValue(1)])]), "BETWEEN takes 2")
        await rejects(note("x", conditions: [condition("age", .gte, [.stringValue("a")])]), "integers or dates")
        var language = note("x")
        language.localizedContent = [localized("english", "x")]
        await rejects(language, "ISO-639-1")
        await assertRPCError(.invalidArgument, "1 to 100") { try await h.messages.createMessage(CreateMessageRequest(), caller: Caller(bearerToken: app.token)) }
        var many = CreateMessageRequest()
        many.notifications = Array(repeating: note("x"), count: 101)
        await assertRPCError(.invalidArgument, "1 to 100") { try await h.messages.createMessage(many, caller: Caller(bearerToken: app.token)) }
        // A rejected request creates nothing (the one accepted is due next year).
        await h.send()
        XCTAssertEqual(try h.sinkLines().count, 0)
    }

    func testAuthorization() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        await assertRPCError(.unauthenticated) { try await h.messages.createMessage(CreateMessageRequest(), caller: Caller()) }
        await assertRPCError(.permissionDenied) { try await h.messages.createMessage(CreateMessageRequest(), caller: Harness.adminCaller) }
        await assertRPCError(.unauthenticated) { try await h.details("X", token: "nope") }
        var delete = DeleteMessageRequest()
        delete.messageCode = "X"
        await assertRPCError(.unauthenticated) { try await h.messages.deleteMessage(delete, caller: Caller()) }
        await assertRPCError(.notFound) { try await h.messages.deleteMessage(delete, caller: Caller(bearerToken: app.token)) }
    }
}
