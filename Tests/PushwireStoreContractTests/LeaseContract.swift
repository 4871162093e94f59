import Foundation
import PushwireStore
import XCTest

/// `MessageStore`'s shared outbox: message leases (`MessageLease`) claimed, renewed, expired,
/// taken over and released, and fan-out steps written only under them — the same on every
/// engine (SQLite keeps them in memory, PostgreSQL in the messages table).
extension StoreContractTests {
    private func lease(_ owner: String, at nowMS: Int64, for durationMS: Int64 = 1000) -> MessageLease {
        MessageLease(owner: owner, nowMS: nowMS, durationMS: durationMS)
    }

    private func isLeaseLost(_ error: StoreError?) -> Bool { if case .leaseLost? = error { return true } else { return false } }

    func testClaimsAreExclusiveUntilTheLeaseExpires() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "LEASE-00001", ["a"])
            let created = try await store.createMessages([
                newMessage(app.id, "L-1", sendAtMS: 100), newMessage(app.id, "L-2", sendAtMS: 200), newMessage(app.id, "L-3", sendAtMS: 300),
                newMessage(app.id, "L-LATER", sendAtMS: 5000),
            ])
            let ids = created.map(\.id)
            // A claims two of the three due ones, oldest first; the later one is not due.
            let a = try await store.claimDueMessages(lease("A", at: 1000), limit: 2, includeSending: true)
            XCTAssertEqual(a, [ids[0], ids[1]])
            // B finds only what A does not hold; A claiming again does not take its own scheduled
            // ones again (it holds them: a scheduler's look would take what it has in memory).
            let b = try await store.claimDueMessages(lease("B", at: 1100), limit: 10, includeSending: true)
            XCTAssertEqual(b, [ids[2]])
            let none = try await store.claimDueMessages(lease("C", at: 1200), limit: 10, includeSending: true)
            XCTAssertEqual(none, [], "nothing is claimed twice while its lease lives")
            let again = try await store.claimDueMessages(lease("A", at: 1300), limit: 10, includeSending: true)
            XCTAssertEqual(again, [], "an owner's live claims of scheduled messages are not taken again")
            // After A's lease expired (2000), C takes A's messages over; B's (until 2100) too.
            let taken = try await store.claimDueMessages(lease("C", at: 2400), limit: 10, includeSending: true)
            XCTAssertEqual(taken, [ids[0], ids[1], ids[2]])
            // A's renewal finds them lost; C's renews them.
            let lost = try await store.renewLeases(lease("A", at: 2500), messageIDs: [ids[0], ids[1]])
            XCTAssertEqual(lost, [])
            let renewed = try await store.renewLeases(lease("C", at: 3300, for: 1000), messageIDs: [ids[0], ids[1], ids[3]])
            XCTAssertEqual(renewed, [ids[0], ids[1]], "its own renewed, never one it does not hold")
            // Until 4300 now: B at 4000 finds them held.
            let held = try await store.claimDueMessages(lease("B", at: 4000), limit: 10, includeSending: true)
            XCTAssertEqual(held, [ids[2]], "only the one C did not renew (expired at 3400)")
            // Released leases are free at once.
            try await store.releaseLeases(owner: "C", messageIDs: [ids[0]])
            try await store.releaseLeases(owner: "A", messageIDs: [ids[1]])  // not A's: left alone
            let freed = try await store.claimDueMessages(lease("B", at: 4100), limit: 10, includeSending: true)
            XCTAssertEqual(freed, [ids[0]], "the released one; B's own (since 4000) is not taken again")
            // A cancelled message is claimed by nobody; a scheduled one stays scheduled when claimed.
            _ = try await store.cancelMessage(applicationID: app.id, code: "L-1")
            let afterCancel = try await store.claimDueMessages(lease("D", at: 9000), limit: 10, includeSending: true)
            XCTAssertEqual(afterCancel, [ids[1], ids[2], ids[3]])
            let status = try await store.message(id: ids[3])?.status
            XCTAssertEqual(status, .scheduled)
        }
    }

    /// A message created under a lease (due now, started from memory by the server that created
    /// it) is its creator's until the lease expires: no claim takes it, its creator's included;
    /// another owner's first step writes nothing, the creator's takes it. Once the lease has
    /// expired, any owner claims it.
    func testAMessageCreatedUnderALeaseIsItsCreatorsUntilTheLeaseExpires() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "LEASE-00004", ["a"])
            func create(_ code: String) async throws -> MessageRecord {
                var message = newMessage(app.id, code, sendAtMS: 1000, targeting: TargetingRecord(hwids: ["a"]))
                message.lease = lease("A", at: 1000, for: 10_000)
                return try await store.createMessages([message])[0]
            }
            let kept = try await create("L-KEPT")
            let claimedByA = try await store.claimDueMessages(lease("A", at: 2000), limit: 10, includeSending: true)
            XCTAssertEqual(claimedByA, [], "its creator holds it in memory: its looks do not take it again")
            let claimedByB = try await store.claimDueMessages(lease("B", at: 2000), limit: 10, includeSending: true)
            XCTAssertEqual(claimedByB, [])
            let stepByB = try await store.recordFanOutStep(FanOutStep(
                messageID: kept.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "a", attempt: 1)], startsSending: true,
                lease: lease("B", at: 2000)))
            XCTAssertEqual(stepByB, [], "another owner's first step wrote under a live lease")
            let stepByA = try await store.recordFanOutStep(FanOutStep(
                messageID: kept.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "a", attempt: 1)], startsSending: true,
                lease: lease("A", at: 2000)))
            XCTAssertEqual(stepByA.count, 1)

            let abandoned = try await create("L-ABANDONED")
            let claimedLater = try await store.claimDueMessages(lease("B", at: 11_001), limit: 10, includeSending: false)
            XCTAssertEqual(claimedLater, [abandoned.id])
        }
    }

    func testStepsAreWrittenOnlyUnderTheLease() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "LEASE-00002", ["a", "b", "c"])
            let message = try await store.createMessages([newMessage(app.id, "L-STEP", sendAtMS: 100)])[0]
            _ = try await store.claimDueMessages(lease("A", at: 1000), limit: 1, includeSending: true)
            // B's first step finds A's live lease: it writes nothing, as for a cancelled message.
            let refused = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "a", attempt: 1)], cursor: "a",
                targetedIncrement: 1, startsSending: true, lease: lease("B", at: 1100)))
            XCTAssertEqual(refused, [])
            var stored = try await store.message(id: message.id)
            XCTAssertEqual(stored?.status, .scheduled)
            XCTAssertNil(stored?.cursor)
            let startedByB = try await store.startSending(messageID: message.id, lease: lease("B", at: 1100))
            XCTAssertFalse(startedByB)
            // A's first step is written (and renews A's lease to 2200).
            let first = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id, handOver: [NewDeliveryRecord(hwid: "a", attempt: 1)], cursor: "a",
                targetedIncrement: 1, startsSending: true, lease: lease("A", at: 1200)))
            XCTAssertEqual(first.count, 1)
            // A later step of B's is refused with leaseLost and writes nothing.
            let error = await storeError { () async throws(StoreError) in
                try await store.recordFanOutStep(FanOutStep(
                    messageID: message.id, applicationID: app.id, results: [DeliveryResultRecord(deliveryID: first[0], hwid: "a", result: .sent)],
                    handOver: [NewDeliveryRecord(hwid: "b", attempt: 1)], cursor: "b", targetedIncrement: 1, lease: lease("B", at: 1300)))
            }
            XCTAssertTrue(isLeaseLost(error), "\(String(describing: error))")
            stored = try await store.message(id: message.id)
            XCTAssertEqual(stored?.cursor, "a")
            var stats = try await store.statistics(messageID: message.id)
            XCTAssertEqual(stats.targeted, 1)
            XCTAssertEqual(stats.sent, 0)

            // A dies; once its lease expired (2200) B takes the message over: it sees A's
            // handed-over record open, closes it as Interrupted and continues from A's cursor.
            let takenOver = try await store.claimDueMessages(lease("B", at: 2300, for: 5000), limit: 5, includeSending: true)
            XCTAssertEqual(takenOver, [message.id])
            let open = try await store.openDeliveries(messageID: message.id)
            XCTAssertEqual(open.map(\.deliveryID), first)
            XCTAssertTrue(open.allSatisfy(\.handedOver))
            let second = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id,
                results: [DeliveryResultRecord(deliveryID: first[0], hwid: "a", result: .failed(reason: "Interrupted", invalidToken: false, refusedToken: nil))],
                handOver: [NewDeliveryRecord(hwid: "b", attempt: 1), NewDeliveryRecord(hwid: "c", attempt: 1)], cursor: "c",
                targetedIncrement: 2, lease: lease("B", at: 2400, for: 5000)))
            XCTAssertEqual(second.count, 2)
            // A wakes up and tries its next step: refused, nothing of it written.
            let late = await storeError { () async throws(StoreError) in
                try await store.recordFanOutSteps([FanOutStep(
                    messageID: message.id, applicationID: app.id, results: [DeliveryResultRecord(deliveryID: first[0], hwid: "a", result: .sent)],
                    finish: true, lease: lease("A", at: 2500))])
            }
            XCTAssertTrue(isLeaseLost(late), "\(String(describing: late))")
            _ = try await store.recordFanOutStep(FanOutStep(
                messageID: message.id, applicationID: app.id,
                results: second.enumerated().map { DeliveryResultRecord(deliveryID: $0.element, hwid: ["b", "c"][$0.offset], result: .sent) },
                finish: true, lease: lease("B", at: 2600, for: 5000)))
            stats = try await store.statistics(messageID: message.id)
            XCTAssertEqual(stats.targeted, 3)
            XCTAssertEqual(stats.sent, 2)
            XCTAssertEqual(stats.failed, 1)
            XCTAssertEqual(stats.failures.map(\.reason), ["Interrupted"])
            stored = try await store.message(id: message.id)
            XCTAssertEqual(stored?.status, .done)
            let renewDone = try await store.renewLeases(lease("B", at: 2700), messageIDs: [message.id])
            XCTAssertEqual(renewDone, [], "a finished message holds no lease")
        }
    }

    func testConcurrentClaimsNeverOverlap() async throws {
        try await forEachEngine { store in
            let app = try await applicationWithDevices(store, "LEASE-00003", ["a"])
            let created = try await store.createMessages((0..<40).map { newMessage(app.id, "L-C\($0)", sendAtMS: Int64(100 + $0)) })
            // Four owners claiming five more at a time, together, until nothing is left (an
            // owner's own claims come back renewed, within the limit).
            let claims = await withTaskGroup(of: [Int64].self) { group in
                for owner in 0..<4 {
                    group.addTask {
                        var mine: [Int64] = []
                        while true {
                            let got = (try? await store.claimDueMessages(MessageLease(owner: "O\(owner)", nowMS: 1000, durationMS: 60_000),
                                                                         limit: mine.count + 5, includeSending: true)) ?? []
                            let new = got.filter { !mine.contains($0) }
                            if new.isEmpty { return mine }
                            mine += new
                        }
                    }
                }
                var all: [[Int64]] = []
                for await claimed in group { all.append(claimed) }
                return all
            }
            let flat = claims.flatMap { $0 }
            XCTAssertEqual(flat.count, Set(flat).count, "no message claimed by two owners")
            XCTAssertEqual(Set(flat), Set(created.map(\.id)), "every due message claimed")
        }
    }
}
