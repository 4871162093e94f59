import Dispatch
import XCTest
@testable import PushwireRuntime

/// `BlockingPool.queuedJobs`, what `/metrics` reports as `pushwire_blocking_queue_jobs`: jobs
/// submitted and not yet taken by a thread.
final class BlockingPoolQueueTests: XCTestCase {
    func testQueuedJobsCountsWhatWaitsForAThread() {
        let pool = BlockingPool(threads: 1)
        defer { pool.stop() }
        let lane = BlockingPool.Lane()
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        // The one thread takes the first job and holds it: the next three wait.
        pool.submit({ running.signal(); release.wait(); finished.signal() }, to: lane)
        XCTAssertEqual(running.wait(timeout: .now() + 5), .success)
        for _ in 0..<3 { pool.submit({ finished.signal() }, to: lane) }
        XCTAssertEqual(pool.queuedJobs, 3)
        release.signal()
        for _ in 0..<4 { XCTAssertEqual(finished.wait(timeout: .now() + 5), .success) }
        XCTAssertEqual(pool.queuedJobs, 0)
    }
}
