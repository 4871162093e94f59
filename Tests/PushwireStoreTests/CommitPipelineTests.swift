import Dispatch
import Foundation
import Synchronization
@testable import PushwireStore
import XCTest

/// The disk should never sit idle while something waits to be made durable: acknowledging a batch
/// must not delay the next fsync, and a long run of queued writes must not keep a commit from
/// starting once the disk is free.
final class CommitPipelineTests: XCTestCase {
    func testASlowAcknowledgmentDoesNotHoldTheNextSync() throws {
        let path = temporaryDataDirectory() + "/db.sqlite3"
        XCTAssertTrue(FileManager.default.createFile(atPath: path + "-wal", contents: Data()))
        let flushes = Mutex(0)
        let syncer = try WALSyncer(databasePath: path, flush: { descriptor in
            flushes.withLock { $0 += 1 }
            return fdatasync(descriptor)
        }, becameIdle: {})
        let release = DispatchSemaphore(value: 0)
        let secondAcknowledged = Mutex(false)
        syncer.submit([{ _ in release.wait() }])  // the first batch's caller takes its time
        XCTAssertTrue(waitUntil { flushes.withLock { $0 } == 1 }, "the first batch was never synced")
        syncer.submit([{ _ in secondAcknowledged.withLock { $0 = true } }])
        XCTAssertTrue(waitUntil { flushes.withLock { $0 } == 2 },
                      "the second batch's fsync waited for the first batch's acknowledgment")
        XCTAssertFalse(secondAcknowledged.withLock { $0 }, "acknowledgments keep the order of their syncs")
        release.signal()
        syncer.close()
        XCTAssertTrue(secondAcknowledged.withLock { $0 })
    }

    func testTheWriterCommitsWhatRanOnceTheDiskIsFreeRatherThanFinishingEveryQueuedWrite() throws {
        // A disk whose fsync takes 100 ms, and 40 writes of 10 ms each queued while it syncs: the
        // writer runs them in its next transaction, and must commit what ran once the sync ends
        // instead of running all 400 ms of them first.
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory(), flushWAL: { descriptor in
            usleep(100_000)
            return fdatasync(descriptor)
        })
        let first = expectation(description: "first write durable")
        store.writer.write({ _ throws(StoreError) in () }, completion: { _ in first.fulfill() })
        XCTAssertTrue(waitUntil { store.writer.statistics.transactions == 1 }, "the first write never committed")
        let done = expectation(description: "the queued writes durable")
        done.expectedFulfillmentCount = 40
        for _ in 0..<40 {
            store.writer.write({ _ throws(StoreError) in usleep(10_000) }, completion: { result in
                if case .success = result { done.fulfill() }
            })
        }
        wait(for: [first, done], timeout: 30)
        XCTAssertGreaterThanOrEqual(store.writer.statistics.transactions, 4,
                                    "the queued writes committed in one transaction, with the disk idle meanwhile")
        XCTAssertEqual(store.writer.statistics.writes, 41)
        store.close()
    }

    /// Polls `condition` for up to five seconds.
    private func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if condition() { return true }
            usleep(1_000)
        }
        return condition()
    }
}
