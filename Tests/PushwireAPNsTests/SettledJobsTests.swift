import PushwireDelivery
import Synchronization
import XCTest

@testable import PushwireAPNs

/// How a connection's thread hands a loop round's outcomes to their batches, without a network.
final class SettledJobsTests: XCTestCase {
    private func jobs(_ count: Int, of batch: BatchCollector) -> [APNsJob] {
        (0..<count).map { index in
            APNsJob(notification: OutgoingNotification(deliveryID: UInt64(index), messageCode: "M", deviceToken: "ab", payload: []),
                    apnsID: "id-\(index)", batch: batch, index: index)
        }
    }

    /// `operation`'s result, or nil when it has not finished within five seconds (a batch that
    /// never completes fails the test instead of hanging it).
    private func bounded<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T? {
        let done = expectation(description: "finished")
        let result = Mutex<T?>(nil)
        Task {
            let value = await operation()
            result.withLock { $0 = value }
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 5)
        return result.withLock { $0 }
    }

    func testEachBatchGetsItsOwnOutcomesAndEverySlotComesBackOnce() async {
        let window = InFlightWindow(size: 8)
        let taken = await window.acquire(atMost: 7)
        XCTAssertEqual(taken, 7)
        let first = BatchCollector(count: 4, window: window)
        let second = BatchCollector(count: 3, window: window)
        let a = jobs(4, of: first), b = jobs(3, of: second)
        var settled = SettledJobs()
        // Interleaved as two connections' answers may come: runs of one batch, then the other.
        for (job, outcome) in [(a[0], DeliveryOutcome.sent(apnsID: "a0")), (a[1], .sent(apnsID: "a1")), (b[2], .failed(reason: "b2")),
                               (a[3], .retry(reason: "a3", after: nil)), (b[0], .sent(apnsID: "b0")), (b[1], .deadToken(reason: "b1", since: 7)),
                               (a[2], .invalidToken(reason: "a2"))] {
            settled.add(job, outcome)
        }
        // A job answered twice (it cannot be, but must not give its slot back twice).
        settled.add(a[0], .failed(reason: "again"))
        XCTAssertFalse(settled.isEmpty)
        settled.handOver()
        XCTAssertTrue(settled.isEmpty)
        let firstOutcomes = await bounded { await first.outcomes() }
        let secondOutcomes = await bounded { await second.outcomes() }
        XCTAssertEqual(firstOutcomes, [.sent(apnsID: "a0"), .sent(apnsID: "a1"), .invalidToken(reason: "a2"), .retry(reason: "a3", after: nil)])
        XCTAssertEqual(secondOutcomes, [.sent(apnsID: "b0"), .deadToken(reason: "b1", since: 7), .failed(reason: "b2")])
        // All seven slots are free again, and no more: the window still holds eight.
        let free = await bounded { await window.acquire(atMost: 100) }
        XCTAssertEqual(free, 8)
        XCTAssertEqual(window.peakInUse, 8)
    }

    func testRefusedNotificationsHoldNoSlot() async {
        let window = InFlightWindow(size: 2)
        let taken = await window.acquire(atMost: 1)
        XCTAssertEqual(taken, 1)
        let batch = BatchCollector(count: 2, window: window)
        batch.refuse(0, .invalidToken(reason: "BadDeviceToken"))
        jobs(2, of: batch)[1].complete(.sent(apnsID: "x"))
        let outcomes = await bounded { await batch.outcomes() }
        XCTAssertEqual(outcomes, [.invalidToken(reason: "BadDeviceToken"), .sent(apnsID: "x")])
        let free = await bounded { await window.acquire(atMost: 100) }
        XCTAssertEqual(free, 2, "the sent one's slot came back; the refused one never took one")
    }
}
