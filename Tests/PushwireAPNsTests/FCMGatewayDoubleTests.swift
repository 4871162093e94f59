import Foundation
import PushwireDelivery
import XCTest
@testable import PushwireAPNs

/// FCM's gateway against the FCM double (Scripts/fcm-double) as a real process: what the
/// transport promises of a send whose answer is lost. (Answers, token grants and restarts
/// through pushwired are in PushwireServiceTests/MessagesFCMEndToEndTests.)
final class FCMGatewayDoubleTests: XCTestCase {
    private static func token(_ index: Int) -> String { "android-\(index):APA91bLostAnswer" }

    /// A send FCM received whole but whose answer was lost with its connection may have been
    /// delivered: it comes back as `.retry` (the pipeline's new attempt record sends it again),
    /// never sent again within its attempt. The double accepts every 26th send of a connection
    /// and closes the connection without answering it or sending GOAWAY.
    func testASendWhoseAnswerWasLostIsNotSentAgainInItsAttempt() async throws {
        let double = try FCMDouble(["--drop-after", "25"])
        defer { double.stop() }
        var configuration = APNsConfiguration(baseURLOverride: double.baseURL, caFile: try APNsDouble.caFile())
        configuration.maxConcurrentStreams = 1
        let gateway = try FCMGateway(account: FCMServiceAccount(json: double.serviceAccountJSON()), configuration: configuration)
        let count = 120
        let outcomes = await gateway.deliver((0..<count).map { index in
            OutgoingNotification(deliveryID: UInt64(index + 1), messageCode: "M-1", deviceToken: Self.token(index),
                                 payload: Array(#"{"data":{"pw_msg":"hello \#(index)"},"android":{"priority":"HIGH"}}"#.utf8), deviceType: 3)
        })
        let sends = double.sends()
        let dropped = Set(sends.filter { $0["dropped"] as? Bool == true }.compactMap { $0["token"] as? String })
        let accepted = sends.filter { $0["dropped"] as? Bool != true && $0["status"] as? Int == 200 }.compactMap { $0["token"] as? String }
        XCTAssertGreaterThanOrEqual(dropped.count, 3, "answers were lost")
        XCTAssertEqual(accepted.count, Set(accepted).count, "no send accepted twice")
        XCTAssertTrue(dropped.isDisjoint(with: accepted), "a send whose answer was lost was not sent again")
        for (index, outcome) in outcomes.enumerated() {
            if dropped.contains(Self.token(index)) {
                guard case .retry(let reason, _) = outcome else { return XCTFail("#\(index), answer lost: \(outcome)") }
                XCTAssertTrue(reason.hasPrefix("no answer after the request was sent"), reason)
            } else if case .sent = outcome {
            } else {
                XCTFail("#\(index): \(outcome)")
            }
        }
        XCTAssertEqual(accepted.count, count - dropped.count, "every other notification sent once")
        XCTAssertEqual(gateway.unansweredAfterSendingCount, dropped.count, "counted for /metrics")
    }
}
