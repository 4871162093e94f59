import Foundation
import PushwireStore
import XCTest

/// `MessageStore`'s fan-out bookkeeping: attempt records, outcomes, open records, all-or-none.
extension StoreContractTests {
    /// A message to `hwids` (registered), moved to sending by its first step.
    private func sendingMessage(_ store: any ContractStore, _ code: String, _ hwids: [String]) async throws
        -> (app: ApplicationRecord, message: MessageRecord) {
        let app = try await applicationWithDevices(store, code, hwids)
        let message = try await store.createMessages([newMessage(app.id, "MSG-\(code)")])[0]
        return (app, message)
    }

    func testAFanOutFromFirstStepToDone() async throws {
        try await forEachEngine { store in
            let (app, message) = try await sendingMessage(store, "FANOU-00001", ["a", "b", "c", "d"])
            let batch1 = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "a", attempt: 1), NewDeliveryRecord(hwid: "b", attempt: 1)],
                cursor: "b", targetedIncrement: 2, badges: [(hwid: "a", badge: 3)], startsSending: true))
            XCTAssertEqual(batch1.count, 2)
            XCTAssertLessThan(batch1[0], batch1[1], "ids in the order of handOver, growing")
            var stored = try await store.message(id: message.id)
            XCTAssertEqual(stored?.status, .sending)
            XCTAssertEqual(stored?.cursor, "b")
            let badge = try await store.target(applicationID: app.id, hwid: "a")
            XCTAssertEqual(badge?.badge, 3)
            var open = try await store.openDeliveries(messageID: message.id)
            XCTAssertEqual(open, [OpenDeliveryRecord(deliveryID: batch1[0], hwid: "a", attempt: 1, handedOver: true, deviceType: 1),
                                  OpenDeliveryRecord(deliveryID: batch1[1], hwid: "b", attempt: 1, handedOver: true, deviceType: 1)])

            // Batch 2 goes out while batch 1 is still with the gateway: both are open.
            let batch2 = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "c", attempt: 1), NewDeliveryRecord(hwid: "d", attempt: 1)],
                cursor: "d", targetedIncrement: 2, stillWithGateway: batch1))
            XCTAssertTrue(batch2.allSatisfy { $0 > batch1[1] })
            open = try await store.openDeliveries(messageID: message.id)
            XCTAssertEqual(open.map(\.hwid), ["a", "b", "c", "d"])
            XCTAssertTrue(open.allSatisfy(\.handedOver))

            // Batch 1's outcomes, with batch 2 still out: a sent, b failed for good with a dead token.
            _ = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, results: [
                DeliveryResultRecord(deliveryID: batch1[0], hwid: "a", result: .sent),
                DeliveryResultRecord(deliveryID: batch1[1], hwid: "b", result: .failed(reason: "BadDeviceToken", invalidToken: true, refusedToken: RefusedToken(token: "t-b", state: .invalid, sinceMS: 1_754_000_000_000))),
            ], stillWithGateway: batch2))
            open = try await store.openDeliveries(messageID: message.id)
            XCTAssertEqual(open.map(\.hwid), ["c", "d"], "batch 1 closed, batch 2 still open")
            let dead = try await store.targets(applicationID: app.id, TargetingRecord(), afterHWID: nil, limit: 10)
            XCTAssertEqual(dead.map(\.hwid), ["a", "c", "d"], "a dead token is not targeted")

            // Batch 2's outcomes: c sent, d waits for a retry.
            _ = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, results: [
                DeliveryResultRecord(deliveryID: batch2[0], hwid: "c", result: .sent),
                DeliveryResultRecord(deliveryID: batch2[1], hwid: "d", result: .retryPending(reason: "TooManyRequests")),
            ]))
            open = try await store.openDeliveries(messageID: message.id)
            XCTAssertEqual(open, [OpenDeliveryRecord(deliveryID: batch2[1], hwid: "d", attempt: 1, handedOver: false, deviceType: 1)])

            // The retry replaces the pending record; it fails for good.
            let retry = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id,
                                                                    handOver: [NewDeliveryRecord(hwid: "d", attempt: 2, replaces: batch2[1])]))
            open = try await store.openDeliveries(messageID: message.id)
            XCTAssertEqual(open, [OpenDeliveryRecord(deliveryID: retry[0], hwid: "d", attempt: 2, handedOver: true, deviceType: 1)], "the pending one was replaced")
            _ = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, results: [
                DeliveryResultRecord(deliveryID: retry[0], hwid: "d", result: .failed(reason: "TooManyRequests", invalidToken: false, refusedToken: nil)),
            ], finish: true))
            open = try await store.openDeliveries(messageID: message.id)
            XCTAssertEqual(open, [])
            stored = try await store.message(id: message.id)
            XCTAssertEqual(stored?.status, .done)
            let stats = try await store.statistics(messageID: message.id)
            XCTAssertEqual([stats.targeted, stats.sent, stats.failed, stats.invalidTokens], [4, 2, 2, 1])
            XCTAssertEqual(stats.failures.map(\.reason), ["BadDeviceToken", "TooManyRequests"], "by reason")
            XCTAssertEqual(stats.failures.map(\.count), [1, 1])

            // A new token revives a device declared dead.
            try await store.upsertDevice(device(app.id, "b", token: "t-b2"), tags: [])
            let revived = try await store.targets(applicationID: app.id, TargetingRecord(hwids: ["b"]), afterHWID: nil, limit: 10)
            XCTAssertEqual(revived.map(\.pushToken), ["t-b2"])
        }
    }

    /// A retry's record keeps its device and attempt number through its own outcomes (given
    /// with an empty hwid, as a caller may): handed over it is open with attempt 2, and waiting
    /// for a retry again it is open, not handed over, still with attempt 2.
    func testARetriedRecordKeepsItsAttemptThroughItsOutcomes() async throws {
        try await forEachEngine { store in
            let (app, message) = try await sendingMessage(store, "RETRY-00001", ["a", "b"])
            let first = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "a", attempt: 1), NewDeliveryRecord(hwid: "b", attempt: 1)],
                cursor: "b", targetedIncrement: 2, startsSending: true))
            _ = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, results: [
                DeliveryResultRecord(deliveryID: first[0], hwid: "a", result: .retryPending(reason: "TooManyRequests")),
                DeliveryResultRecord(deliveryID: first[1], hwid: "b", result: .retryPending(reason: "TooManyRequests")),
            ]))
            let second = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, handOver: [
                NewDeliveryRecord(hwid: "a", attempt: 2, replaces: first[0]), NewDeliveryRecord(hwid: "b", attempt: 2, replaces: first[1]),
            ]))
            var open = try await store.openDeliveries(messageID: message.id)
            XCTAssertEqual(open, [OpenDeliveryRecord(deliveryID: second[0], hwid: "a", attempt: 2, handedOver: true, deviceType: 1),
                                  OpenDeliveryRecord(deliveryID: second[1], hwid: "b", attempt: 2, handedOver: true, deviceType: 1)])
            _ = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, results: [
                DeliveryResultRecord(deliveryID: second[0], hwid: "", result: .retryPending(reason: "ServiceUnavailable")),
                DeliveryResultRecord(deliveryID: second[1], hwid: "", result: .sent),
            ]))
            open = try await store.openDeliveries(messageID: message.id)
            XCTAssertEqual(open, [OpenDeliveryRecord(deliveryID: second[0], hwid: "a", attempt: 2, handedOver: false, deviceType: 1)])
            let stats = try await store.statistics(messageID: message.id)
            XCTAssertEqual([stats.targeted, stats.sent, stats.failed], [2, 1, 0])
        }
    }

    func testAFirstStepOfACancelledMessageWritesNothing() async throws {
        try await forEachEngine { store in
            let (app, message) = try await sendingMessage(store, "CANCF-00001", ["a"])
            _ = try await store.cancelMessage(applicationID: app.id, code: message.code)
            let ids = try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id,
                                                                  handOver: [NewDeliveryRecord(hwid: "a", attempt: 1)], cursor: "a",
                                                                  targetedIncrement: 1, badges: [(hwid: "a", badge: 9)], startsSending: true))
            XCTAssertEqual(ids, [])
            let stored = try await store.message(id: message.id)
            XCTAssertEqual(stored?.status, .cancelled)
            XCTAssertNil(stored?.cursor)
            let stats = try await store.statistics(messageID: message.id)
            XCTAssertEqual(stats.targeted, 0)
            let open = try await store.openDeliveries(messageID: message.id)
            XCTAssertEqual(open, [])
            let target = try await store.target(applicationID: app.id, hwid: "a")
            XCTAssertEqual(target?.badge, 0, "no badge written")
        }
    }

    func testSeveralStepsInOneTransaction() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "STEPS-00001", ["a", "b"])
            let created = try await store.createMessages([newMessage(app.id, "S1"), newMessage(app.id, "S2"), newMessage(app.id, "S3")])
            _ = try await store.cancelMessage(applicationID: app.id, code: "S2")
            let ids = try await store.recordFanOutSteps(created.map { message in
                FanOutStep(messageID: message.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "a", attempt: 1), NewDeliveryRecord(hwid: "b", attempt: 1)],
                           cursor: "b", targetedIncrement: 2, startsSending: true)
            })
            XCTAssertEqual(ids.map(\.count), [2, 0, 2], "each step's ids, none for the cancelled message")
            XCTAssertEqual(Set(ids.flatMap { $0 }).count, 4, "unique")
            let finished = try await store.recordFanOutSteps([created[0], created[2]].enumerated().map { index, message in
                let mine = ids[index == 0 ? 0 : 2]
                return FanOutStep(messageID: message.id, applicationID: app.id,
                                  results: mine.map { DeliveryResultRecord(deliveryID: $0, hwid: "", result: .sent) }, finish: true)
            })
            XCTAssertEqual(finished, [[], []])
            for message in [created[0], created[2]] {
                let stored = try await store.message(id: message.id)
                XCTAssertEqual(stored?.status, .done)
                let stats = try await store.statistics(messageID: message.id)
                XCTAssertEqual([stats.targeted, stats.sent], [2, 2])
            }
        }
    }

    /// All or none: a list of steps with one that cannot apply writes nothing of any.
    func testStepsAreAllOrNone() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "ALLOR-00001", ["a", "b", "c"])
            let created = try await store.createMessages([newMessage(app.id, "A1"), newMessage(app.id, "A2")])
            let first = try await store.recordFanOutStep(FanOutStep(messageID: created[1].id, applicationID: app.id,
                                                                    handOver: [NewDeliveryRecord(hwid: "a", attempt: 1), NewDeliveryRecord(hwid: "b", attempt: 1)],
                                                                    cursor: "b", targetedIncrement: 2, startsSending: true))
            // The second step names as still with the gateway ids no earlier step returned together.
            let bogus = [first[0], first[1] + 1_000_000]
            let error = await storeError { () async throws(StoreError) in
                try await store.recordFanOutSteps([
                    FanOutStep(messageID: created[0].id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "c", attempt: 1)],
                               cursor: "c", targetedIncrement: 1, badges: [(hwid: "c", badge: 5)], startsSending: true),
                    FanOutStep(messageID: created[1].id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "c", attempt: 1)],
                               cursor: "c", targetedIncrement: 1, stillWithGateway: bogus),
                ])
            }
            XCTAssertTrue(isInvalidChange(error), "\(String(describing: error))")
            let untouched = try await store.message(id: created[0].id)
            XCTAssertEqual(untouched?.status, .scheduled, "the valid step was not written either")
            XCTAssertNil(untouched?.cursor)
            let target = try await store.target(applicationID: app.id, hwid: "c")
            XCTAssertEqual(target?.badge, 0)
            let open = try await store.openDeliveries(messageID: created[1].id)
            XCTAssertEqual(open.map(\.hwid), ["a", "b"], "the other message's records as they were")
            let stats = try await store.statistics(messageID: created[1].id)
            XCTAssertEqual(stats.targeted, 2)
        }
    }
}
