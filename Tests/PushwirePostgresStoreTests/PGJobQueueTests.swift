import Foundation
@testable import PushwirePostgresStore
import PushwireStore
import XCTest

/// The writer's queue puts callers' writes ahead of the delivery pipeline's bookkeeping
/// (background writes), and holds a background write back no longer than
/// `PGJobQueue.maximumBackgroundWait`.
final class PGJobQueueTests: XCTestCase {
    private final class Job: PGJob, @unchecked Sendable {
        // @unchecked: immutable.
        let name: String
        init(_ name: String) { self.name = name }
        func run(on connection: PGConnection) throws(StoreError) {}
        func complete(_ error: StoreError?) {}
    }

    private func names(_ jobs: [PGJob]?) -> [String] { (jobs ?? []).compactMap { ($0 as? Job)?.name } }

    func testCallersWritesGoFirst() {
        let queue = PGJobQueue()
        XCTAssertTrue(queue.push(Job("step"), background: true))
        XCTAssertTrue(queue.push(Job("call 1")))
        XCTAssertTrue(queue.push(Job("call 2")))
        XCTAssertEqual(names(queue.take(limit: 100, until: Date())), ["call 1", "call 2"], "the fresh background write waits")
        XCTAssertEqual(names(queue.take(limit: 100, until: Date())), ["step"], "alone once no caller's write waits")
    }

    func testABackgroundWriteIsNotHeldBackForever() {
        let queue = PGJobQueue()
        XCTAssertTrue(queue.push(Job("step"), background: true))
        usleep(UInt32(PGJobQueue.maximumBackgroundWait / 1000) + 2000)
        XCTAssertTrue(queue.push(Job("call")))
        XCTAssertEqual(names(queue.take(limit: 100, until: Date())), ["step", "call"])
        XCTAssertEqual(queue.count, 0)
    }
}
