@testable import PushwireRuntime
import Dispatch
import Synchronization
import XCTest

/// Event loops record their metrics in shards of their own: two loops hashed to one shard would
/// move a cache line between cores on every call they count.
final class ShardedCountersTests: XCTestCase {
    func testEachEventLoopRecordsInTheShardOfItsIndex() throws {
        var loops: [EventLoop] = []
        defer {
            for loop in loops { loop.stop() }
            for loop in loops { loop.join() }
        }
        for index in 0..<ShardedCounters.shardCount {
            let loop = try EventLoop(index: index)
            try loop.start()
            loops.append(loop)
        }
        let shards = Mutex<[Int: Int]>([:])
        let answered = expectation(description: "every loop said its shard")
        answered.expectedFulfillmentCount = loops.count
        for loop in loops {
            let index = loop.index
            loop.execute {
                shards.withLock { $0[index] = ShardedCounters.currentShard }
                answered.fulfill()
            }
        }
        wait(for: [answered], timeout: 10)
        let found = shards.withLock { $0 }
        XCTAssertEqual(found, Dictionary(uniqueKeysWithValues: (0..<loops.count).map { ($0, $0) }))
    }

    func testCountsFromManyThreadsAddUp() {
        let counters = ShardedCounters(count: 3)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<1_000 { counters.add(1, 2) }
        }
        counters.add(0)
        counters.add(3)  // out of range: ignored
        XCTAssertEqual([counters.value(0), counters.value(1), counters.value(2)], [1, 32_000, 0])
    }
}
