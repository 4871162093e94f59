import Foundation
import PushwireDelivery
import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

/// The console's read-only Messages methods: ListMessages, CountTargets, PreviewNotification and
/// GetDevice, each checked against what the sending path then does.
final class MessagesConsoleMethodsTests: XCTestCase {
    /// CountTargets walks the fan-out's own selection: for every kind of selector its count is
    /// the number of devices the message then targets and the sink receives.
    func testCountTargetsIsWhatTheFanOutTargets() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        try await h.register(app.code, "a1", userID: "alice", tags: [makeTag("age", .intValue(30)), makeTag("city", .stringValue("Paris"))])
        try await h.register(app.code, "b2", userID: "bob", tags: [makeTag("age", .intValue(45))])
        try await h.register(app.code, "c3", userID: "carol", type: .android, tags: [makeTag("vip", .boolValue(true))])
        for index in 0..<7 { try await h.register(app.code, "many-\(index)", tags: [makeTag("city", .stringValue("Berlin"))]) }
        try await h.register(app.code, "gone")
        var gone = UnregisterDeviceRequest()
        gone.application = app.code
        gone.hwid = "gone"
        _ = try await h.base.devices.unregisterDevice(gone)
        let other = try await h.base.createApplication()
        try await h.register(other.code, "theirs")

        let cases: [PushwireWire.Notification] = [
            note("all"), note("hwids", devices: ["a1", "c3", "zz", "gone"]), note("users", userIDs: ["bob", "carol"]),
            note("ios", platforms: [.ios]), note("in", conditions: [condition("city", .in, [.stringValue("Paris"), .stringValue("Berlin")])]),
            note("between", conditions: [condition("age", .between, [.intValue(25), .intValue(50)])]),
            note("and", userIDs: ["alice", "bob"], conditions: [condition("age", .gte, [.intValue(40)])]),
            note("none", conditions: [condition("vip", .eq, [.boolValue(false)])]),
        ]
        var counts: [UInt64] = []
        for n in cases {
            var request = CountTargetsRequest()
            if let targeting = n.targeting { request.targeting = targeting }
            let counted = try await h.messages.countTargets(request, caller: Caller(bearerToken: app.token))
            XCTAssertFalse(counted.atLeast)
            let code = try await h.create(n, token: app.token).messageCodes[0]
            await h.send()
            let details = try await h.details(code, token: app.token)
            XCTAssertEqual(details.status, .done, n.content)
            XCTAssertEqual(counted.devices, details.targeted, "\(n.content): the count is what the fan-out targeted")
            XCTAssertEqual(UInt64(try h.sinkLines().filter { $0.messageCode == code }.count), counted.devices, n.content)
            counts.append(counted.devices)
        }
        XCTAssertEqual(counts, [10, 2, 2, 9, 8, 2, 1, 0])
        // A bad targeting gets CreateMessage's own error; another app's token counts its own devices.
        var bad = CountTargetsRequest()
        bad.targeting = try XCTUnwrap(note("x", conditions: [condition("age", .between, [.intValue(1)])]).targeting)
        await assertRPCError(.invalidArgument) { try await h.messages.countTargets(bad, caller: Caller(bearerToken: app.token)) }
        let theirs = try await h.messages.countTargets(CountTargetsRequest(), caller: Caller(bearerToken: other.token))
        XCTAssertEqual(theirs.devices, 1)
        await assertRPCError(.unauthenticated) { try await h.messages.countTargets(CountTargetsRequest(), caller: Caller(bearerToken: "nope")) }
    }

    /// PreviewNotification's payload is, byte for byte, what the sink receives once the
    /// placeholder message code is replaced by the real one; its errors are CreateMessage's.
    func testPreviewIsWhatIsSent() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        try await h.register(app.code, "en-1", language: "en")
        try await h.register(app.code, "de-1", language: "de")
        var n = note("Your order shipped")
        n.title = "Shop"
        n.localizedContent = [localized("de", "Ihre Bestellung ist unterwegs")]
        n.iosBadge = { var b = Badge(); b.change = .set(3); return b }()
        n.iosSound = "default"
        n.data = #"{"order": 42, "tags": ["a", "b"]}"#
        var request = PreviewNotificationRequest()
        request.notification = n
        let preview = try await h.messages.previewNotification(request, caller: Caller(bearerToken: app.token))
        XCTAssertEqual(preview.limit, 4096)
        XCTAssertEqual(preview.payloads.map(\.language), ["", "de"])
        let code = try await h.create(n, token: app.token).messageCodes[0]
        await h.send()
        let sent = Dictionary(uniqueKeysWithValues: try h.sinkLines().filter { $0.messageCode == code }.map { ($0.token, $0.payload) })
        for (hwid, language) in [("en-1", ""), ("de-1", "de")] {
            let payload = try XCTUnwrap(preview.payloads.first { $0.language == language })
            let expected = payload.apnsPayload.replacingOccurrences(of: MessageCodes.placeholder, with: code)
            XCTAssertEqual(sent[MessagesHarness.token(for: hwid)], expected, "language \(language)")
            XCTAssertEqual(Int(payload.size), payload.apnsPayload.utf8.count)
            XCTAssertGreaterThanOrEqual(payload.worstCaseSize, payload.size)
            XCTAssertFalse(payload.trimmed)
        }

        // Too long: CreateMessage's refusal; with trim_to_fit, trimmed to fit the limit.
        n.content = String(repeating: "x", count: 5000)
        request.notification = n
        await assertRPCError(.invalidArgument) { try await h.messages.previewNotification(request, caller: Caller(bearerToken: app.token)) }
        n.trimToFit = true
        request.notification = n
        let trimmed = try await h.messages.previewNotification(request, caller: Caller(bearerToken: app.token))
        XCTAssertTrue(trimmed.payloads[0].trimmed)
        XCTAssertFalse(trimmed.payloads[1].trimmed, "the German text is short")
        XCTAssertLessThanOrEqual(trimmed.payloads[0].worstCaseSize, 4096)
        XCTAssertGreaterThan(trimmed.payloads[0].worstCaseSize, 4000)
        n.data = "[1]"
        request.notification = n
        await assertRPCError(.invalidArgument) { try await h.messages.previewNotification(request, caller: Caller(bearerToken: app.token)) }
        await assertRPCError(.invalidArgument) { try await h.messages.previewNotification(PreviewNotificationRequest(), caller: Caller(bearerToken: app.token)) }
    }

    /// ListMessages: newest first, by pages, one application's only, with its limits checked.
    func testListMessagesPagesNewestFirst() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        let other = try await h.base.createApplication()
        var create = CreateMessageRequest()
        create.notifications = (0..<7).map { index in
            var n = note("list \(index)")
            n.sendAtMS = DeliveryPipeline.nowMS() + 3_600_000
            return n
        }
        let codes = try await h.messages.createMessage(create, caller: Caller(bearerToken: app.token)).messageCodes
        _ = try await h.create(note("theirs"), token: other.token)
        var seen: [String] = []
        var request = ListMessagesRequest()
        request.pageSize = 3
        var pages = 0
        repeat {
            let page = try await h.messages.listMessages(request, caller: Caller(bearerToken: app.token))
            XCTAssertLessThanOrEqual(page.messages.count, 3)
            XCTAssertTrue(page.messages.allSatisfy { $0.status == .scheduled && $0.sendAtMS > DeliveryPipeline.nowMS() })
            seen += page.messages.map(\.messageCode)
            request.pageToken = page.nextPageToken
            pages += 1
        } while !request.pageToken.isEmpty && pages < 10
        XCTAssertEqual(seen, codes.reversed(), "newest first, each once")
        XCTAssertEqual(pages, 3)
        let theirs = try await h.messages.listMessages(ListMessagesRequest(), caller: Caller(bearerToken: other.token))
        XCTAssertEqual(theirs.messages.count, 1)
        XCTAssertEqual(theirs.nextPageToken, "")
        request = ListMessagesRequest()
        request.pageSize = 101
        await assertRPCError(.invalidArgument) { try await h.messages.listMessages(request, caller: Caller(bearerToken: app.token)) }
        for token in ["abc", "-5", "0", String(repeating: "9", count: 30)] {
            request = ListMessagesRequest()
            request.pageToken = token
            await assertRPCError(.invalidArgument) { try await h.messages.listMessages(request, caller: Caller(bearerToken: app.token)) }
        }
        await assertRPCError(.unauthenticated) { try await h.messages.listMessages(ListMessagesRequest(), caller: Caller(bearerToken: "")) }
    }

    /// GetDevice: the registration, tags and token state as the fan-out sees it.
    func testGetDeviceShowsTokenStates() async throws {
        let deadToken = MessagesHarness.token(for: "dead")
        let sink = try FileSinkGateway(path: NSTemporaryDirectory() + "pushwire-getdevice-\(UUID().uuidString.prefix(8)).jsonl")
        let gateway = ScriptedGateway(next: sink) { notification, _ in
            notification.deviceToken == deadToken ? .deadToken(reason: "Unregistered", since: nil) : nil
        }
        let h = try await MessagesHarness(gateway: gateway)
        let app = try await h.base.createApplication()
        try await h.register(app.code, "live", language: "fr", userID: "u1", tags: [makeTag("plan", .stringValue("pro"))])
        try await h.register(app.code, "dead")
        try await h.register(app.code, "unregistered")
        var gone = UnregisterDeviceRequest()
        gone.application = app.code
        gone.hwid = "unregistered"
        _ = try await h.base.devices.unregisterDevice(gone)
        _ = try await h.create(note("1"), token: app.token)
        await h.send()

        func device(_ hwid: String, token: String = app.token) async throws -> GetDeviceResponse {
            var request = GetDeviceRequest()
            request.hwid = hwid
            return try await h.messages.getDevice(request, caller: Caller(bearerToken: token))
        }
        let live = try await device("live")
        XCTAssertEqual(live.tokenState, .live)
        XCTAssertEqual(live.deviceType, .ios)
        XCTAssertEqual(live.language, "fr")
        XCTAssertEqual(live.userID, "u1")
        XCTAssertEqual(live.tags.map(\.name), ["plan"])
        XCTAssertEqual(live.pushToken, MessagesHarness.token(for: "live"))
        let dead = try await device("dead")
        XCTAssertEqual(dead.tokenState, .dead)
        XCTAssertEqual(dead.pushToken, deadToken)
        let unregistered = try await device("unregistered")
        XCTAssertEqual(unregistered.tokenState, .noToken)
        // Registering a new token brings the dead device back.
        try await h.register(app.code, "dead", token: "ab" + deadToken)
        let back = try await device("dead")
        XCTAssertEqual(back.tokenState, .live)

        await assertRPCError(.notFound) { try await device("nobody") }
        let other = try await h.base.createApplication()
        await assertRPCError(.notFound) { try await device("live", token: other.token) }
        await assertRPCError(.invalidArgument) { try await device("") }
        await assertRPCError(.invalidArgument) { try await device(String(repeating: "h", count: 129)) }
    }
}
