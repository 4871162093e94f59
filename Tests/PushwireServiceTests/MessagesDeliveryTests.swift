import PushwireDelivery
import PushwireWire
import XCTest
@testable import PushwireService

/// CreateMessage to the file sink: each selector, localization fallback, idempotency, dead tokens, retries.
final class MessagesDeliveryTests: XCTestCase {
    func testEverySelector() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        try await h.register(app.code, "a1", userID: "alice", tags: [makeTag("age", .intValue(30)), makeTag("city", .stringValue("Paris"))])
        try await h.register(app.code, "b2", userID: "bob", tags: [makeTag("age", .intValue(45)), makeTag("pets", .listValue({ var l = StringList(); l.values = ["cat", "dog"]; return l }()))])
        try await h.register(app.code, "c3", userID: "carol", type: .android, tags: [makeTag("vip", .boolValue(true)), makeTag("since", .dateValue(1_700_000_000))])
        try await h.register(app.code, "d4", userID: "dave", tags: [makeTag("city", .stringValue("Berlin"))])
        try await h.register(app.code, "e5")
        var gone = UnregisterDeviceRequest()
        gone.application = app.code
        gone.hwid = "e5"
        _ = try await h.base.devices.unregisterDevice(gone)

        let cases: [(PushwireWire.Notification, Set<String>)] = [
            (note("all"), ["a1", "b2", "c3", "d4"]),
            (note("hwids", devices: ["a1", "c3", "zz"]), ["a1", "c3"]),
            (note("users", userIDs: ["bob", "dave"]), ["b2", "d4"]),
            (note("ios", platforms: [.ios]), ["a1", "b2", "d4"]),
            (note("eq", conditions: [condition("city", .eq, [.stringValue("Paris")])]), ["a1"]),
            (note("in", conditions: [condition("city", .in, [.stringValue("Paris"), .stringValue("Berlin")])]), ["a1", "d4"]),
            (note("list", conditions: [condition("pets", .eq, [.stringValue("dog")])]), ["b2"]),
            (note("gte", conditions: [condition("age", .gte, [.intValue(40)])]), ["b2"]),
            (note("lte", conditions: [condition("age", .lte, [.intValue(40)])]), ["a1"]),
            (note("between", conditions: [condition("age", .between, [.intValue(25), .intValue(50)])]), ["a1", "b2"]),
            (note("bool", conditions: [condition("vip", .eq, [.boolValue(true)])]), ["c3"]),
            (note("date", conditions: [condition("since", .gte, [.dateValue(1_600_000_000)])]), ["c3"]),
            (note("and", userIDs: ["alice", "bob"], conditions: [condition("age", .gte, [.intValue(40)])]), ["b2"]),
            (note("unregistered", devices: ["e5"]), []),
        ]
        for (n, expected) in cases {
            let response = try await h.create(n, token: app.token)
            if n.content == "hwids" { XCTAssertEqual(response.unknownDevices, ["zz"]) }
            await h.send()
            let lines = try h.sinkLines().filter { $0.messageCode == response.messageCodes[0] }
            XCTAssertEqual(Set(lines.map(\.token)), Set(expected.map(MessagesHarness.token(for:))), n.content)
            XCTAssertEqual(lines.count, expected.count, n.content)
            let details = try await h.details(response.messageCodes[0], token: app.token)
            XCTAssertEqual(details.status, .done)
            XCTAssertEqual(details.targeted, UInt64(expected.count), n.content)
            XCTAssertEqual(details.sent, UInt64(expected.count), n.content)
        }
    }

    func testLocalizationFallbackAndMessageCodeInPayload() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        for (hwid, language) in [("de1", "de"), ("fr1", "fr"), ("ja1", "ja"), ("none", "")] {
            try await h.register(app.code, hwid, language: language)
        }
        var n = note("Hello")
        n.localizedContent = [localized("de", "Hallo"), localized("fr", "Bonjour")]
        let code = try await h.create(n, token: app.token).messageCodes[0]
        await h.send()
        var bodies: [String: String] = [:]
        for line in try h.sinkLines() {
            bodies[line.token] = line.body
            XCTAssertEqual((line.json["payload"] as? [String: Any])?["pw_msg"] as? String, code)
        }
        XCTAssertEqual(bodies[MessagesHarness.token(for: "de1")], "Hallo")
        XCTAssertEqual(bodies[MessagesHarness.token(for: "fr1")], "Bonjour")
        XCTAssertEqual(bodies[MessagesHarness.token(for: "ja1")], "Hello")
        XCTAssertEqual(bodies[MessagesHarness.token(for: "none")], "Hello")
    }

    func testTransactionIDIsIdempotent() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        try await h.register(app.code, "a")
        var n = note("once")
        n.transactionID = "tx-1"
        let first = try await h.create(n, token: app.token)
        await h.send()
        let again = try await h.create(n, token: app.token)
        await h.send()
        XCTAssertEqual(first.messageCodes, again.messageCodes)
        XCTAssertEqual(try h.sinkLines().count, 1)
        // Another application may use the same transaction id.
        let other = try await h.base.createApplication("other")
        let otherCodes = try await h.create(n, token: other.token).messageCodes
        XCTAssertNotEqual(otherCodes, first.messageCodes)
    }

    func testBadgeIncrementIsTrackedPerDevice() async throws {
        let h = try await MessagesHarness()
        let app = try await h.base.createApplication()
        try await h.register(app.code, "a")
        var n = note("b")
        var badge = Badge()
        badge.change = .increment(2)
        n.iosBadge = badge
        _ = try await h.create(n, token: app.token)
        await h.send()
        _ = try await h.create(n, token: app.token)
        await h.send()
        XCTAssertEqual(try h.sinkLines().map { $0.aps["badge"] as? Int }, [2, 4])
    }

    func testDeadTokenStopsTargetingUntilNewToken() async throws {
        let sinkDirectory = NSTemporaryDirectory() + "pushwire-dead-\(UUID().uuidString.prefix(8)).jsonl"
        let sink = try FileSinkGateway(path: sinkDirectory)
        let deadToken = MessagesHarness.token(for: "dead")
        let gateway = ScriptedGateway(next: sink) { notification, _ in
            notification.deviceToken == deadToken ? .deadToken(reason: "Unregistered", since: nil) : nil
        }
        let h = try await MessagesHarness(gateway: gateway)
        let app = try await h.base.createApplication()
        try await h.register(app.code, "dead")
        try await h.register(app.code, "live")
        let first = try await h.create(note("1"), token: app.token).messageCodes[0]
        await h.send()
        let details = try await h.details(first, token: app.token)
        XCTAssertEqual([details.targeted, details.sent, details.failed, details.invalidTokens], [2, 1, 1, 1])
        XCTAssertEqual(details.failures.map(\.reason), ["Unregistered"])

        _ = try await h.create(note("2"), token: app.token)
        await h.send()
        XCTAssertEqual(gateway.delivered.filter { $0.deviceToken == deadToken }.count, 1, "a dead token is not targeted again")

        try await h.register(app.code, "dead", token: "beef")
        _ = try await h.create(note("3"), token: app.token)
        await h.send()
        XCTAssertEqual(gateway.delivered.filter { $0.deviceToken == "beef" }.count, 1, "a new token is targeted again")
    }

    func testTransientFailuresAreRetriedWithNewAttemptRecords() async throws {
        let sink = try FileSinkGateway(path: NSTemporaryDirectory() + "pushwire-retry-\(UUID().uuidString.prefix(8)).jsonl")
        let flaky = MessagesHarness.token(for: "flaky"), hopeless = MessagesHarness.token(for: "hopeless")
        let gateway = ScriptedGateway(next: sink) { notification, count in
            if notification.deviceToken == flaky && count < 3 { return .retry(reason: "TooManyRequests", after: nil) }
            if notification.deviceToken == hopeless { return .retry(reason: "InternalServerError", after: nil) }
            return nil
        }
        let h = try await MessagesHarness(gateway: gateway)
        let app = try await h.base.createApplication()
        for hwid in ["flaky", "hopeless", "fine"] { try await h.register(app.code, hwid) }
        let code = try await h.create(note("r"), token: app.token).messageCodes[0]
        await h.send()
        let attempts = gateway.delivered
        XCTAssertEqual(attempts.filter { $0.deviceToken == flaky }.count, 3)
        XCTAssertEqual(attempts.filter { $0.deviceToken == hopeless }.count, MessagesHarness.fastConfiguration.maxAttempts)
        XCTAssertEqual(Set(attempts.map(\.deliveryID)).count, attempts.count, "each attempt has its own record")
        let details = try await h.details(code, token: app.token)
        XCTAssertEqual([details.targeted, details.sent, details.failed], [3, 2, 1])
        XCTAssertEqual(details.failures.map(\.reason), ["InternalServerError"])
    }

    func testBackoffGrowsAndIsCapped() async {
        var configuration = DeliveryPipeline.Configuration()
        configuration.retryBaseDelay = .seconds(1)
        configuration.retryMaxDelay = .seconds(8)
        for attempt in 1...6 {
            let delay = FanOut.backoff(attempt: attempt, configuration)
            let nominal = min(Double(1 << (attempt - 1)), 8)
            XCTAssertGreaterThanOrEqual(delay, .seconds(nominal * 0.5))
            XCTAssertLessThanOrEqual(delay, .seconds(nominal * 1.5))
        }
    }
}
