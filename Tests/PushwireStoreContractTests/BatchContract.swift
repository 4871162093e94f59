import Foundation
import PushwireStore
import XCTest

/// `MessageStore`'s shared fan-out batches (`FanOutBatchRecord`): bounds, cutting, claims under
/// leases of their own, steps fenced by them, takeover from a batch's cursor, and the message
/// done with its last batch — the same on every engine (SQLite keeps them in memory,
/// PostgreSQL in `message_batches`).
extension StoreContractTests {
    private func lease(_ owner: String, at nowMS: Int64, for durationMS: Int64 = 1000) -> MessageLease {
        MessageLease(owner: owner, nowMS: nowMS, durationMS: durationMS)
    }

    private func isLeaseLost(_ error: StoreError?) -> Bool { if case .leaseLost? = error { return true } else { return false } }

    func testBatchBoundsEndEveryRunButTheLast() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "BATCH-00001", ["g", "a", "c", "b", "e", "d", "f"])
            var bounds = try await store.batchBounds(applicationID: app.id, TargetingRecord(), every: 3)
            XCTAssertEqual(bounds, ["c", "f"], "runs a…c, d…f and g")
            bounds = try await store.batchBounds(applicationID: app.id, TargetingRecord(), every: 7)
            XCTAssertEqual(bounds, [], "one run: no bound")
            bounds = try await store.batchBounds(applicationID: app.id, TargetingRecord(), every: 6)
            XCTAssertEqual(bounds, ["f"])
            var narrowed = TargetingRecord()
            narrowed.hwids = ["a", "b", "d", "g"]
            bounds = try await store.batchBounds(applicationID: app.id, narrowed, every: 2)
            XCTAssertEqual(bounds, ["b"], "counted among the selected targets only")
            let error = await storeError { () async throws(StoreError) in
                try await store.batchBounds(applicationID: app.id, TargetingRecord(), every: 0)
            }
            guard case .invalidChange? = error else { return XCTFail("\(String(describing: error))") }
        }
    }

    func testCutBatchesAreClaimedByOneOwnerAtATime() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "BATCH-00002", ["a", "b", "c", "d", "e", "f", "g"])
            let message = try await store.createMessages([newMessage(app.id, "B-CUT", sendAtMS: 100)])[0]
            _ = try await store.claimDueMessages(lease("A", at: 1000), limit: 1, includeSending: true)
            // B cannot cut what A holds; A can.
            let byB = try await store.cutFanOut(messageID: message.id, lease: lease("B", at: 1100), bounds: ["c", "f"])
            XCTAssertFalse(byB)
            let byA = try await store.cutFanOut(messageID: message.id, lease: lease("A", at: 1100), bounds: ["c", "f"])
            XCTAssertTrue(byA)
            let stored = try await store.message(id: message.id)
            XCTAssertEqual(stored?.status, .sending)
            // No longer claimed whole, by anyone: its batches are its work.
            let whole = try await store.claimDueMessages(lease("C", at: 5000), limit: 10, includeSending: true)
            XCTAssertEqual(whole, [])
            let due = try await store.dueMessages(nowMS: 5000, limit: 10)
            XCTAssertEqual(due.map(\.id), [])
            // Nor started whole (a scheduler that read it before the cut): its batches are its work.
            let startedWhole = try await store.startSending(messageID: message.id, lease: lease("A", at: 1120))
            XCTAssertFalse(startedWhole, "a cut message is never fanned out whole")
            // A second cut changes nothing (three batches stay).
            let again = try await store.cutFanOut(messageID: message.id, lease: lease("A", at: 1150), bounds: ["b"])
            XCTAssertTrue(again)

            let id = { (index: Int) in FanOutBatchID(messageID: message.id, index: index) }
            let a = try await store.claimFanOutBatches(lease("A", at: 1200), limit: 2)
            XCTAssertEqual(a, [FanOutBatchRecord(id: id(0), afterHWID: nil, throughHWID: "c"),
                               FanOutBatchRecord(id: id(1), afterHWID: "c", throughHWID: "f")])
            // A claiming again gets none of its own live ones back (it is fanning them out):
            // only the free batch, which it then holds too; it gives that one back.
            let mineAgain = try await store.claimFanOutBatches(lease("A", at: 1250), limit: 2)
            XCTAssertEqual(mineAgain.map(\.id), [id(2)], "an owner's live batches are not claimed again")
            try await store.releaseBatchLeases(owner: "A", batches: [id(2)])
            let b = try await store.claimFanOutBatches(lease("B", at: 1300), limit: 5)
            XCTAssertEqual(b, [FanOutBatchRecord(id: id(2), afterHWID: "f", throughHWID: nil)])
            let none = try await store.claimFanOutBatches(lease("C", at: 1400), limit: 5)
            XCTAssertEqual(none, [], "nothing is claimed twice while its lease lives")
            // A's leases run to 2200 and B's to 2300: at 2250 C takes A's, and A cannot renew.
            let taken = try await store.claimFanOutBatches(lease("C", at: 2250), limit: 5)
            XCTAssertEqual(taken.map(\.id), [id(0), id(1)])
            let lost = try await store.renewBatchLeases(lease("A", at: 2260), batches: [id(0), id(1)])
            XCTAssertEqual(lost, [])
            let renewed = try await store.renewBatchLeases(lease("B", at: 2270, for: 5000), batches: [id(2), id(0)])
            XCTAssertEqual(renewed, [id(2)], "its own renewed, never one it does not hold")
            // Released leases are free at once; another owner's release leaves them alone.
            try await store.releaseBatchLeases(owner: "C", batches: [id(1)])
            try await store.releaseBatchLeases(owner: "A", batches: [id(0)])
            let freed = try await store.claimFanOutBatches(lease("D", at: 2300), limit: 5)
            XCTAssertEqual(freed.map(\.id), [id(1)])
        }
    }

    func testBatchStepsAddUpAndTheLastBatchClosesTheMessage() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "BATCH-00003", ["a", "b", "c", "d"])
            let message = try await store.createMessages([newMessage(app.id, "B-STEPS", sendAtMS: 100)])[0]
            let cut = try await store.cutFanOut(messageID: message.id, lease: lease("A", at: 1000), bounds: ["b"])
            XCTAssertTrue(cut)
            let id = { (index: Int) in FanOutBatchID(messageID: message.id, index: index) }
            _ = try await store.claimFanOutBatches(lease("A", at: 1000, for: 60_000), limit: 1)
            _ = try await store.claimFanOutBatches(lease("B", at: 1000, for: 60_000), limit: 1)
            let hand = { (hwids: [String]) in hwids.map { NewDeliveryRecord(hwid: $0, attempt: 1) } }
            let platform = { (targeted: UInt64, sent: UInt64) in [PlatformCountRecord(deviceType: 1, targeted: targeted, sent: sent)] }
            let first = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id, handOver: hand(["a", "b"]), cursor: "b", targetedIncrement: 2,
                platformCounts: platform(2, 0), lease: lease("A", at: 1100, for: 60_000), batch: 0))
            XCTAssertEqual(first.count, 2)
            // B may not step A's batch: refused, nothing written.
            let error = await storeError { () async throws(StoreError) in
                try await store.recordFanOutStep(FanOutStep(
                    messageID: message.id, applicationID: app.id, handOver: hand(["a"]), cursor: "a", targetedIncrement: 1,
                    lease: lease("B", at: 1100, for: 60_000), batch: 0))
            }
            XCTAssertTrue(isLeaseLost(error), "\(String(describing: error))")
            let second = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id, handOver: hand(["c", "d"]), cursor: "d", targetedIncrement: 2,
                platformCounts: platform(2, 0), lease: lease("B", at: 1100, for: 60_000), batch: 1))
            XCTAssertEqual(second.count, 2)
            var stats = try await store.statistics(messageID: message.id)
            XCTAssertEqual(stats.targeted, 4, "the message's counts are the sum of its batches'")
            // The first batch to finish leaves the message sending; the last closes it.
            _ = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id,
                results: [DeliveryResultRecord(deliveryID: second[0], hwid: "c", result: .sent),
                          DeliveryResultRecord(deliveryID: second[1], hwid: "d", result: .failed(reason: "BadDeviceToken", invalidToken: true, refusedToken: nil))],
                finish: true, platformCounts: [PlatformCountRecord(deviceType: 1, sent: 1, failed: 1, invalidTokens: 1)],
                lease: lease("B", at: 1200, for: 60_000), batch: 1))
            var stored = try await store.message(id: message.id)
            XCTAssertEqual(stored?.status, .sending, "batch 0 is still open")
            let after = await storeError { () async throws(StoreError) in
                try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, finish: true,
                                                            lease: lease("B", at: 1300, for: 60_000), batch: 1))
            }
            XCTAssertTrue(isLeaseLost(after), "a done batch takes no more steps: \(String(describing: after))")
            _ = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id,
                results: first.enumerated().map { DeliveryResultRecord(deliveryID: $0.element, hwid: ["a", "b"][$0.offset], result: .sent) },
                finish: true, platformCounts: platform(0, 2), lease: lease("A", at: 1300, for: 60_000), batch: 0))
            stored = try await store.message(id: message.id)
            XCTAssertEqual(stored?.status, .done)
            stats = try await store.statistics(messageID: message.id)
            XCTAssertEqual(stats.targeted, 4)
            XCTAssertEqual(stats.sent, 3)
            XCTAssertEqual(stats.failed, 1)
            XCTAssertEqual(stats.invalidTokens, 1)
            XCTAssertEqual(stats.failures.map(\.reason), ["BadDeviceToken"])
            XCTAssertEqual(stats.platforms, [PlatformCountRecord(deviceType: 1, targeted: 4, sent: 3, failed: 1, invalidTokens: 1)])
            let claimDone = try await store.claimFanOutBatches(lease("C", at: 99_000_000), limit: 5)
            XCTAssertEqual(claimDone, [], "done batches are claimed by nobody")
            // Wrong steps: no lease, starting the message, an unknown batch.
            let noLease = await storeError { () async throws(StoreError) in
                try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, batch: 0))
            }
            guard case .invalidChange? = noLease else { return XCTFail("\(String(describing: noLease))") }
            let unknown = await storeError { () async throws(StoreError) in
                try await store.openDeliveries(batch: id(7))
            }
            guard case .notFound? = unknown else { return XCTFail("\(String(describing: unknown))") }
            let unknownStep = await storeError { () async throws(StoreError) in
                try await store.recordFanOutStep(FanOutStep(messageID: message.id, applicationID: app.id, lease: lease("A", at: 1400), batch: 7))
            }
            guard case .notFound? = unknownStep else { return XCTFail("\(String(describing: unknownStep))") }
        }
    }

    func testATakenOverBatchResumesFromItsCursorWithItsOpenRecords() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "BATCH-00004", ["a", "b", "c", "d", "e"])
            let message = try await store.createMessages([newMessage(app.id, "B-TAKEOVER", sendAtMS: 100)])[0]
            _ = try await store.cutFanOut(messageID: message.id, lease: lease("A", at: 1000), bounds: ["c"])
            let id0 = FanOutBatchID(messageID: message.id, index: 0)
            _ = try await store.claimFanOutBatches(lease("A", at: 1000), limit: 1)
            // A hands a and b over, records a retry for a, hands b's neighbour c over, then dies.
            let first = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "a", attempt: 1), NewDeliveryRecord(hwid: "b", attempt: 1)],
                cursor: "b", targetedIncrement: 2, lease: lease("A", at: 1100), batch: 0))
            let second = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id,
                results: [DeliveryResultRecord(deliveryID: first[0], hwid: "a", result: .retryPending(reason: "TooManyRequests"))],
                handOver: [NewDeliveryRecord(hwid: "c", attempt: 1)], cursor: "c", targetedIncrement: 1,
                stillWithGateway: [first[1]], lease: lease("A", at: 1200), batch: 0))
            // Batch 1's own record: not batch 0's business.
            _ = try await store.claimFanOutBatches(lease("B", at: 1200, for: 60_000), limit: 5)
            _ = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "d", attempt: 1)], cursor: "d",
                targetedIncrement: 1, lease: lease("B", at: 1200, for: 60_000), batch: 1))
            // Once A's lease expired (2200), C takes batch 0 over, from its cursor.
            let taken = try await store.claimFanOutBatches(lease("C", at: 2300, for: 60_000), limit: 5)
            XCTAssertEqual(taken, [FanOutBatchRecord(id: id0, afterHWID: nil, throughHWID: "c", cursor: "c")])
            XCTAssertEqual(taken.first?.resumeAfter, "c")
            let open = try await store.openDeliveries(batch: id0)
            XCTAssertEqual(open.map(\.hwid), ["a", "b", "c"])
            XCTAssertEqual(open.map(\.handedOver), [false, true, true], "a waits for its retry; b and c were with the gateway")
            XCTAssertEqual(open.map(\.deliveryID), [first[0], first[1], second[0]])
            // A wakes up: its steps are refused, nothing of them written.
            let late = await storeError { () async throws(StoreError) in
                try await store.recordFanOutSteps([FanOutStep(messageID: message.id, applicationID: app.id, finish: true,
                                                              lease: lease("A", at: 2400), batch: 0)])
            }
            XCTAssertTrue(isLeaseLost(late), "\(String(describing: late))")
            let stored = try await store.message(id: message.id)
            XCTAssertEqual(stored?.status, .sending)
        }
    }
}
