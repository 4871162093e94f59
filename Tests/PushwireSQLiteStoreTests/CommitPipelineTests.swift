import Dispatch
import Foundation
import Synchronization
@testable import PushwireSQLiteStore
import PushwireStore
import XCTest

/// The disk should never sit idle while something waits to be made durable: acknowledging a batch
/// must not delay the next fsync, and a long run of queued writes must not keep a commit from
/// starting once the disk is free.
final class CommitPipelineTests: XCTestCase {
    func testASlowAcknowledgmentDoesNotHoldTheNextSync() async throws {
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

    func testTheWriterCommitsWhatRanOnceTheDiskIsFreeRatherThanFinishingEveryQueuedWrite() async throws {
        // A disk whose fsync takes 100 ms, and 40 writes of 10 ms each queued while it syncs: the
        // writer runs them in its next transaction, and must commit what ran once the sync ends
        // instead of running all 400 ms of them first. Nothing here may depend on how soon a
        // thread is scheduled (on a loaded CI machine a wake-up took over 100 ms, and 40 writes
        // taken after the sync had ended were rightly one transaction):
        // - the first write's sync is held until the 40 are queued;
        // - a gate write holds the writer while they are queued, so that it takes all 40 at once,
        //   on its own thread, with the sync still held;
        // - the sync is let go only once the first of the 40 runs.
        let holdingSyncs = Mutex(true)
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory(), flushWAL: { descriptor in
            while holdingSyncs.withLock({ $0 }) { usleep(1_000) }
            usleep(100_000)
            return fdatasync(descriptor)
        })
        let first = expectation(description: "first write durable")
        store.writer.write({ _ throws(StoreError) in () }, completion: { _ in first.fulfill() })
        XCTAssertTrue(waitUntil { store.writer.statistics.transactions == 1 }, "the first write never committed")
        let gate = DispatchSemaphore(value: 0)
        let gateRunning = DispatchSemaphore(value: 0)
        store.writer.write({ _ throws(StoreError) in
            gateRunning.signal()
            gate.wait()
        }, completion: { _ in })
        gateRunning.wait()
        let started = Mutex(false)
        let done = expectation(description: "the queued writes durable")
        done.expectedFulfillmentCount = 40
        for _ in 0..<40 {
            store.writer.write({ _ throws(StoreError) in
                started.withLock { $0 = true }
                usleep(10_000)
            }, completion: { result in
                if case .success = result { done.fulfill() }
            })
        }
        gate.signal()
        XCTAssertTrue(waitUntil { started.withLock { $0 } }, "the queued writes never started")
        holdingSyncs.withLock { $0 = false }
        await fulfillment(of: [first, done], timeout: 30)
        XCTAssertGreaterThanOrEqual(store.writer.statistics.transactions, 4,
                                    "the queued writes committed in one transaction, with the disk idle meanwhile")
        XCTAssertEqual(store.writer.statistics.writes, 42)
        store.close()
    }

    func testACallersWriteRunsAheadOfQueuedBackgroundWrites() async throws {
        // Eight background writes taken together, the first of them running when a caller's write
        // arrives: the caller's runs next, not after the other seven. The disk is slow (300 ms a
        // sync), so that no commit comes due meanwhile to cut the eight short for its own reason.
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory(), flushWAL: { descriptor in
            usleep(300_000)
            return fdatasync(descriptor)
        })
        let order = Mutex<[String]>([])
        let done = expectation(description: "every write durable")
        done.expectedFulfillmentCount = 10
        // A caller's write holds the writer while the eight are queued, so that it takes them at once.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        store.writer.write({ _ throws(StoreError) in
            holding.signal()
            release.wait()
        }, completion: { _ in done.fulfill() })
        holding.wait()
        let firstStarted = DispatchSemaphore(value: 0)
        let callerQueued = DispatchSemaphore(value: 0)
        for index in 1...8 {
            store.writer.write({ _ throws(StoreError) in
                order.withLock { $0.append("background \(index)") }
                if index == 1 {
                    firstStarted.signal()
                    callerQueued.wait()
                }
            }, background: true, completion: { result in
                if case .success = result { done.fulfill() }
            })
        }
        release.signal()
        firstStarted.wait()
        store.writer.write({ _ throws(StoreError) in order.withLock { $0.append("caller") } }, completion: { result in
            if case .success = result { done.fulfill() }
        })
        callerQueued.signal()
        await fulfillment(of: [done], timeout: 30)
        XCTAssertEqual(order.withLock { Array($0.prefix(2)) }, ["background 1", "caller"])
        XCTAssertEqual(order.withLock { $0.count }, 9)
        store.close()
    }

    func testAStreamOfCallersWritesDoesNotStarveBackgroundOnes() async throws {
        // Callers' writes that never stop coming (each queues the next before it ends) until 100
        // have run after the background write (or 20 s passed), and one background write queued as
        // they start: it runs once it waited `maximumBackgroundWait`, not when the stream ends.
        // Counted, not timed: on a loaded machine 300 ms of stream held as few as 22 writes.
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory())
        let order = Mutex<[String]>([])
        let end = Date().addingTimeInterval(20)
        let streamEnded = expectation(description: "the stream ended")
        @Sendable func goesOn() -> Bool {
            let ran = order.withLock { $0 }
            guard let position = ran.firstIndex(of: "background") else { return Date() < end }
            return ran.count - position <= 100 && Date() < end
        }
        @Sendable func next() {
            store.writer.write({ _ throws(StoreError) -> Bool in
                usleep(500)
                if goesOn() {
                    next()
                    order.withLock { $0.append("caller") }
                    return false
                }
                order.withLock { $0.append("last caller") }
                return true
            }, completion: { result in if case .success(true) = result { streamEnded.fulfill() } })
        }
        next()
        let background = expectation(description: "the background write durable")
        store.writer.write({ _ throws(StoreError) in order.withLock { $0.append("background") } }, background: true,
                           completion: { _ in background.fulfill() })
        await fulfillment(of: [background, streamEnded], timeout: 60)
        let ran = order.withLock { $0 }
        let position = try XCTUnwrap(ran.firstIndex(of: "background"))
        XCTAssertLessThan(position, ran.count - 100, "the background write waited for the stream to end (\(ran.count) writes)")
        store.close()
    }

    func testBackgroundWritesQueuedAtCloseStillComplete() async throws {
        // A disk slow enough that the background writes queue behind a sync when the store closes.
        let store = try SQLiteStore(dataDirectory: temporaryDataDirectory(), flushWAL: { descriptor in
            usleep(50_000)
            return fdatasync(descriptor)
        })
        let done = expectation(description: "every write durable")
        done.expectedFulfillmentCount = 21
        store.writer.write({ _ throws(StoreError) in () }, completion: { _ in done.fulfill() })
        for _ in 0..<20 {
            store.writer.write({ _ throws(StoreError) in () }, background: true, completion: { result in
                if case .success = result { done.fulfill() }
            })
        }
        store.close()
        await fulfillment(of: [done], timeout: 30)
        XCTAssertEqual(store.writer.statistics.writes, 21)
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
