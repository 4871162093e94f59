import Foundation
import PushwireStore
import XCTest

/// `MessageStore.tokenRefusal`: how a push service refused a device's token, kept on the device
/// by a fan-out step's failed outcome until the device registers another token.
extension StoreContractTests {
    func testARefusedTokenKeepsItsStateAndTimeUntilAnotherTokenIsRegistered() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "REFUS-00001", ["dead", "invalid", "moved", "fine"])
            let message = try await store.createMessages([newMessage(app.id, "MSG-REFUS-1")])[0]
            let ids = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id,
                handOver: ["dead", "invalid", "moved", "fine"].map { NewDeliveryRecord(hwid: $0, attempt: 1) },
                cursor: "moved", targetedIncrement: 4, startsSending: true))
            // "moved" registers another token while the old one is with the gateway.
            try await store.upsertDevice(device(app.id, "moved", token: "t-moved2"), tags: [])
            let dead = RefusedToken(token: "t-dead", state: .dead, sinceMS: 1_754_000_000_123)
            let invalid = RefusedToken(token: "t-invalid", state: .invalid, sinceMS: 1_754_000_000_456)
            _ = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, results: [
                DeliveryResultRecord(deliveryID: ids[0], hwid: "dead", result: .failed(reason: "Unregistered", invalidToken: true, refusedToken: dead)),
                DeliveryResultRecord(deliveryID: ids[1], hwid: "invalid", result: .failed(reason: "BadDeviceToken", invalidToken: true, refusedToken: invalid)),
                DeliveryResultRecord(deliveryID: ids[2], hwid: "moved", result: .failed(
                    reason: "Unregistered", invalidToken: true, refusedToken: RefusedToken(token: "t-moved", state: .dead, sinceMS: 5))),
                DeliveryResultRecord(deliveryID: ids[3], hwid: "fine", result: .sent),
            ], finish: true))

            var found = try await store.tokenRefusal(applicationID: app.id, hwid: "dead")
            XCTAssertEqual(found, dead, "dead, as of APNs' timestamp")
            found = try await store.tokenRefusal(applicationID: app.id, hwid: "invalid")
            XCTAssertEqual(found, invalid)
            found = try await store.tokenRefusal(applicationID: app.id, hwid: "moved")
            XCTAssertNil(found, "the refusal of a token the device no longer has is not kept")
            found = try await store.tokenRefusal(applicationID: app.id, hwid: "fine")
            XCTAssertNil(found)
            found = try await store.tokenRefusal(applicationID: app.id, hwid: "nobody")
            XCTAssertNil(found)

            // Registering the same token again does not revive it; another token does.
            try await store.upsertDevice(device(app.id, "dead", token: "t-dead", language: "de"), tags: [])
            found = try await store.tokenRefusal(applicationID: app.id, hwid: "dead")
            XCTAssertEqual(found, dead, "the refused token registered again stays refused")
            try await store.upsertDevice(device(app.id, "invalid", token: "t-invalid2"), tags: [])
            found = try await store.tokenRefusal(applicationID: app.id, hwid: "invalid")
            XCTAssertNil(found, "a new token is live")
            let targets = try await store.targets(applicationID: app.id, TargetingRecord(), afterHWID: nil, limit: 10)
            XCTAssertEqual(targets.map(\.hwid), ["fine", "invalid", "moved"])

            // Unregistered (no token): nothing refused to show.
            try await store.upsertDevice(device(app.id, "dead", token: ""), tags: [])
            found = try await store.tokenRefusal(applicationID: app.id, hwid: "dead")
            XCTAssertNil(found)
        }
    }
}
