import Foundation
@testable import PushwireDelivery
import XCTest

/// The two gateways that need no network: the file sink (`pushwired --sink FILE`, and the default
/// of applications without APNs credentials) and the null gateway (`--sink /dev/null`, benchmarks).
final class GatewayTests: XCTestCase {
    private func temporaryFile() -> String {
        NSTemporaryDirectory() + "pushwire-sink-\(getpid())-\(UUID().uuidString.prefix(8)).jsonl"
    }

    private func notification(_ id: UInt64, payload: String = #"{"aps":{"alert":{"body":"hi"}}}"#) -> OutgoingNotification {
        OutgoingNotification(deliveryID: id, messageCode: "3F9A1-0C77E2B4-91D0A6FF", deviceToken: String(format: "%064x", id),
                             payload: Array(payload.utf8), priority: 5, expiration: 1_800_000_000, collapseID: "c\"q")
    }

    func testFileSinkWritesOneJSONLinePerNotificationAndReportsThemSent() async throws {
        let path = temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try FileSinkGateway(path: path)
        let outcomes = await sink.deliver([notification(1), notification(2, payload: "")])
        XCTAssertEqual(outcomes, [.sent(apnsID: ""), .sent(apnsID: "")])

        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(text.filter { $0 == "\n" }.count, 2, "one line each, newline-terminated")
        let lines = text.split(separator: "\n").map(String.init)
        let expected = #"{"delivery_id":1,"message_code":"3F9A1-0C77E2B4-91D0A6FF","token":""# + String(format: "%064x", 1)
            + #"","platform":"ios","priority":5,"expiration":1800000000,"collapse_id":"c\"q","payload":{"aps":{"alert":{"body":"hi"}}}}"#
        XCTAssertEqual(lines[0], expected, "the payload is embedded as JSON, byte for byte")
        let second = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        XCTAssertTrue(second["payload"] is NSNull, "an empty payload is written as null")
        XCTAssertEqual((second["delivery_id"] as? NSNumber)?.intValue, 2)
    }

    func testFileSinkLinesOfABatchAreEachWhatTheirOwnNotificationSays() async throws {
        // The sink formats what consecutive notifications share once; every line must still be
        // its own notification's, whichever field changes from one line to the next.
        let path = temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try FileSinkGateway(path: path)
        let shared = Array(#"{"aps":{"alert":{"body":"hi"}}}"#.utf8)
        func make(_ id: UInt64, code: String = "AAAAA-00000000-00000001", token: String, payload: [UInt8],
                  priority: Int = 10, expiration: Int64 = 0, collapse: String = "") -> OutgoingNotification {
            OutgoingNotification(deliveryID: id, messageCode: code, deviceToken: token, payload: payload, priority: priority,
                                 expiration: expiration, collapseID: collapse)
        }
        let batch = [
            make(0, token: "t0", payload: shared),
            make(1, token: "t1", payload: shared),
            make(2, token: "t2", payload: Array(#"{"aps":{"alert":{"body":"hallo"}}}"#.utf8)),
            make(3, token: "t3", payload: shared, priority: 5),
            make(4, token: "t4", payload: shared, priority: 5, expiration: -1),
            make(5, token: "t5", payload: shared, priority: 5, expiration: -1, collapse: "c"),
            make(6, code: "BBBBB-00000000-00000002", token: "t\"6", payload: shared, priority: 5, expiration: -1, collapse: "c"),
            make(UInt64.max, code: "BBBBB-00000000-00000002", token: "t7", payload: [], expiration: 1_800_000_000),
        ]
        _ = await sink.deliver(batch)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let expected = batch.map { n -> String in
            let payload = n.payload.isEmpty ? "null" : String(decoding: n.payload, as: UTF8.self)
            let token = n.deviceToken.replacingOccurrences(of: "\"", with: "\\\"")
            return #"{"delivery_id":\#(n.deliveryID),"message_code":"\#(n.messageCode)","token":"\#(token)","platform":"ios","priority":\#(n.priority),"#
                + #""expiration":\#(n.expiration),"collapse_id":"\#(n.collapseID)","payload":\#(payload)}"#
        }
        XCTAssertEqual(lines, expected)
    }

    func testFileSinkAppendsAndConcurrentBatchesNeverInterleave() async throws {
        let path = temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("earlier line\n".utf8).write(to: URL(fileURLWithPath: path))
        let sink = try FileSinkGateway(path: path)
        // 8 batches of 200 at once: each batch is one write(2) on an O_APPEND descriptor.
        let batches = (0..<8).map { batch in (0..<200).map { notification(UInt64(batch * 1000 + $0)) } }
        await withTaskGroup(of: Void.self) { group in
            for batch in batches {
                group.addTask { _ = await sink.deliver(batch) }
            }
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.first, "earlier line", "the sink appends")
        let ids = try lines.dropFirst().map { line -> Int in
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            return try XCTUnwrap((object["delivery_id"] as? NSNumber)?.intValue)
        }
        XCTAssertEqual(ids.count, 1600)
        // Each batch's lines are contiguous and in order.
        for start in stride(from: 0, to: ids.count, by: 200) {
            let batch = ids[start..<start + 200]
            let base = try XCTUnwrap(batch.first)
            XCTAssertEqual(Array(batch), Array(base..<base + 200))
        }
    }

    func testFileSinkThatCannotBeOpenedSaysWhy() {
        XCTAssertThrowsError(try FileSinkGateway(path: "/nonexistent-dir-\(getpid())/sink.jsonl")) { error in
            XCTAssertTrue("\(error)".contains("cannot open sink file"), "\(error)")
        }
    }

    func testNullGatewayAcceptsEverythingAndCounts() async {
        let null = NullGateway()
        let outcomes = await null.deliver([notification(1), notification(2)])
        XCTAssertEqual(outcomes, [.sent(apnsID: ""), .sent(apnsID: "")])
        _ = await null.deliver([notification(3, payload: "12345")])
        XCTAssertEqual(null.accepted.notifications, 3)
        XCTAssertEqual(null.accepted.payloadBytes, 2 * 31 + 5)
    }

    func testUnavailableGatewayAsksForARetryWithItsReasonAndSendsNothing() async {
        let gateway = UnavailableGateway(reason: "APNsGatewayUnavailable")
        let outcomes = await gateway.deliver([notification(1), notification(2)])
        XCTAssertEqual(outcomes, Array(repeating: .retry(reason: "APNsGatewayUnavailable", after: nil), count: 2))
    }
}

/// Routing by platform: each notification to its service's gateway, outcomes in the batch's order.
final class PlatformRouterTests: XCTestCase {
    /// Records what it was given and answers with `outcome`.
    final class Recording: NotificationGateway, @unchecked Sendable {
        let outcome: DeliveryOutcome
        private let lock = NSLock()
        private var received: [OutgoingNotification] = []
        init(_ outcome: DeliveryOutcome) { self.outcome = outcome }
        var tokens: [String] { lock.lock(); defer { lock.unlock() }; return received.map(\.deviceToken) }
        func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
            lock.withLock { received += batch }
            return Array(repeating: outcome, count: batch.count)
        }
    }

    private func batch(_ types: [Int32]) -> [OutgoingNotification] {
        types.enumerated().map { OutgoingNotification(deliveryID: UInt64($0.offset), messageCode: "M", deviceToken: "t\($0.offset)",
                                                      payload: Array("{}".utf8), deviceType: $0.element) }
    }

    func testEachPlatformGoesToItsOwnServiceAndOutcomesKeepTheBatchOrder() async {
        let apns = Recording(.sent(apnsID: "a"))
        let fcm = Recording(.failed(reason: "FromFCM"))
        let router = PlatformRouter(gateways: [.apns: apns, .fcm: fcm])
        let outcomes = await router.deliver(batch([1, 3, 7, 10, 3, 11]))
        XCTAssertEqual(outcomes, [.sent(apnsID: "a"), .failed(reason: "FromFCM"), .sent(apnsID: "a"), .sent(apnsID: "a"),
                                  .failed(reason: "FromFCM"), .failed(reason: "UnsupportedPlatform")])
        XCTAssertEqual(apns.tokens, ["t0", "t2", "t3"], "iOS, macOS and Safari through APNs")
        XCTAssertEqual(fcm.tokens, ["t1", "t4"], "Android through FCM")
    }

    func testAPlatformWithoutCredentialsIsCountedNotSentElsewhere() async {
        let apns = Recording(.sent(apnsID: ""))
        let router = PlatformRouter(gateways: [.apns: apns])
        let outcomes = await router.deliver(batch([3, 1]))
        XCTAssertEqual(outcomes, [.failed(reason: "NoCredentialsForPlatform"), .sent(apnsID: "")])
        XCTAssertEqual(apns.tokens, ["t1"], "the Android device never reaches APNs")
    }

    func testTheSinkNamesEachLinesPlatform() throws {
        let text = String(decoding: FileSinkGateway.lines(batch([1, 3, 7, 17])), as: UTF8.self)
        let platforms = text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["platform"] as? String
        }
        XCTAssertEqual(platforms, ["ios", "android", "macos", "type17"])
    }
}
