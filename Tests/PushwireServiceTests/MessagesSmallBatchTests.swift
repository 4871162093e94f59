import Foundation
import PushwireDelivery
import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

/// Small messages (a few explicit devices each) created through the event-loop path go out
/// through the running scheduler together (`SmallMessagesFanOut`), with the same outcomes as one
/// fan-out each: every device once, counts right, retries after a backoff, cancelled ones never.
final class MessagesSmallBatchTests: XCTestCase {
    /// CreateMessage through the callback path (what the server's event loop runs).
    private func create(_ h: MessagesHarness, _ notification: PushwireWire.Notification, token: String) async throws -> String {
        var request = CreateMessageRequest()
        request.notifications = [notification]
        let result: Result<CreateMessageResponse, RPCError> = await withCheckedContinuation { continuation in
            h.messages.createMessage(request, caller: Caller(bearerToken: token)) { continuation.resume(returning: $0) }
        }
        return try XCTUnwrap(result.get().messageCodes.first)
    }

    /// Waits until every code's message is done (or 10 s pass).
    private func waitUntilDone(_ h: MessagesHarness, _ codes: [String], token: String) async throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            var done = true
            for code in codes where try await h.details(code, token: token).status != .done { done = false }
            if done { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("not all messages done in time")
    }

    func testManySmallMessagesAreEachDeliveredOnceThroughTheScheduler() async throws {
        var configuration = MessagesHarness.fastConfiguration
        configuration.batchSize = 5000
        let h = try await MessagesHarness(configuration: configuration)
        let app = try await h.base.createApplication()
        for hwid in ["a", "b", "c"] { try await h.register(app.code, hwid) }
        h.pipeline.start()
        defer { h.pipeline.requestStop() }
        var codes: [String] = []
        for index in 0..<150 {
            codes.append(try await create(h, note("m\(index)", devices: ["a", "b"]), token: app.token))
        }
        // One device unknown: only the known one is targeted.
        codes.append(try await create(h, note("one", devices: ["c", "nobody"]), token: app.token))
        try await waitUntilDone(h, codes, token: app.token)

        let lines = try h.sinkLines()
        XCTAssertEqual(lines.count, 150 * 2 + 1)
        XCTAssertEqual(Set(lines.map(\.deliveryID)).count, lines.count, "a delivery record handed over twice")
        for code in codes {
            let details = try await h.details(code, token: app.token)
            let expected: UInt64 = code == codes.last ? 1 : 2
            XCTAssertEqual(details.targeted, expected, code)
            XCTAssertEqual(details.sent, expected, code)
            XCTAssertEqual(lines.filter { $0.messageCode == code }.count, Int(expected), code)
        }
    }

    func testTransientFailureInABatchIsRetriedAfterTheBackoff() async throws {
        var configuration = MessagesHarness.fastConfiguration
        configuration.batchSize = 5000
        let sinkPath = NSTemporaryDirectory() + "pushwire-small-batch-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: sinkPath) }
        let retryToken = MessagesHarness.token(for: "b")
        // b's first attempt is refused for now; every other attempt goes through.
        let gateway = ScriptedGateway(next: try FileSinkGateway(path: sinkPath)) { notification, count in
            notification.deviceToken == retryToken && count == 1 ? .retry(reason: "TooManyRequests", after: nil) : nil
        }
        let h = try await MessagesHarness(gateway: gateway, configuration: configuration)
        let app = try await h.base.createApplication()
        for hwid in ["a", "b"] { try await h.register(app.code, hwid) }
        h.pipeline.start()
        defer { h.pipeline.requestStop() }
        let code = try await create(h, note("again", devices: ["a", "b"]), token: app.token)
        try await waitUntilDone(h, [code], token: app.token)

        let details = try await h.details(code, token: app.token)
        XCTAssertEqual(details.targeted, 2)
        XCTAssertEqual(details.sent, 2)
        XCTAssertEqual(details.failed, 0)
        let attempts = gateway.delivered.filter { $0.deviceToken == retryToken }
        XCTAssertEqual(attempts.count, 2)
        XCTAssertNotEqual(attempts.first?.deliveryID, attempts.last?.deliveryID, "a retry is a new attempt record")
    }

    func testStoredSpecIsReadWithoutJSONDecoder() async throws {
        // The fast reader must accept everything `encode` writes (escapes, control characters,
        // localized texts, custom data, badges): when it gives up, the fallback hides it.
        for spec in try MessagesSpecEncodingTests.specs() {
            let text = MessageSpecJSON.encode(spec)
            XCTAssertEqual(MessageSpecReader.read(text), spec, text)
        }
        // JSONEncoder's text (another key order, escaped slashes) is left to the fallback.
        XCTAssertNil(MessageSpecReader.read(#"{"ttl":0}"#))
    }
}
