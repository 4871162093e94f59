import Glibc
import XCTest
@testable import PushwireService

final class DeliveryExecutorTests: XCTestCase {
    /// The delivery pipeline's tasks run below the default priority, so that threads answering
    /// calls go first on a busy core.
    func testTasksRunAtTheDeliveryNiceness() async {
        // On Linux, PRIO_PROCESS with id 0 names the calling thread.
        let niceness = await Task(executorPreference: DeliveryExecutor.shared) {
            getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        }.value
        XCTAssertEqual(niceness, DeliveryExecutor.niceness)
        // The test's own thread (the default executor's, at its QoS's priority) keeps its own.
        XCTAssertLessThan(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0), DeliveryExecutor.niceness)
    }

    /// Child tasks inherit the preference; every one of many jobs runs (none is lost in the queue).
    func testChildTasksAndManyJobsRunOnTheDeliveryThreads() async {
        let total = await Task(executorPreference: DeliveryExecutor.shared) {
            await withTaskGroup(of: Int32.self) { group in
                for _ in 0..<5000 {
                    group.addTask {
                        await Task.yield()
                        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                    }
                }
                var sum: Int32 = 0
                for await niceness in group { sum += niceness }
                return sum
            }
        }.value
        XCTAssertEqual(total, 5000 * DeliveryExecutor.niceness)
    }
}
