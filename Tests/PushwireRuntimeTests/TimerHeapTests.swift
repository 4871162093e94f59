@testable import PushwireRuntime
import XCTest

/// Deadlines of calls that completed long before them must not pile up in the loop's timer heap.
final class TimerHeapTests: XCTestCase {
    func testEntriesWhoseReasonWentAwayAreSweptWhileLiveOnesStillFireInOrder() {
        var heap = TimerHeap()
        var fired: [Int] = []
        // A call-like stream: 200 000 timers with a far deadline, each dead once the next 8 are
        // scheduled (a call that completed), as under a steady load with long deadlines.
        var completed = 0
        for index in 0..<200_000 {
            heap.schedule(at: 1_000_000 + UInt64(index), isLive: { index >= completed }) {}
            completed = max(0, index - 8)
            XCTAssertLessThanOrEqual(heap.count, 2 * TimerHeap.minimumSweep + 16, "swept too late at \(index)")
            if heap.count > 2 * TimerHeap.minimumSweep + 16 { return }
        }
        // Timers without `isLive` stay until they fire, and everything fires in deadline order.
        for index in (0..<5).reversed() {
            heap.schedule(at: UInt64(index)) { fired.append(index) }
        }
        while let entry = heap.popExpired(now: 10) { entry.action() }
        XCTAssertEqual(fired, [0, 1, 2, 3, 4])
        var deadlines: [UInt64] = []
        while let entry = heap.popExpired(now: .max) { deadlines.append(entry.deadline) }
        XCTAssertEqual(deadlines, deadlines.sorted(), "the heap is still a heap after its sweeps")
        XCTAssertTrue(deadlines.count >= 8 && deadlines.count <= 2 * TimerHeap.minimumSweep + 16, "\(deadlines.count)")
        XCTAssertEqual(deadlines.last, 1_000_000 + 199_999, "the live timers survived the sweeps")
    }
}
