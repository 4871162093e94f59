#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PushwireSystem
import Synchronization
import XCTest

/// The store's, the pools' and delivery's one thread type: its name is the kernel's, its niceness
/// is the process's plus its step whichever thread starts it, a wake-up before a sleep is kept,
/// and a sleep with a deadline ends at it.
final class WorkerThreadTests: XCTestCase {
    /// What the worker's thread saw of itself.
    private struct Seen: Sendable {
        var name = ""
        var niceness: Int32 = 0
    }

    /// The calling thread's niceness (`getpriority` with 0 names the calling thread on Linux).
    private static func threadNiceness() -> Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }

    private static func run(_ worker: WorkerThread) throws(SystemError) -> Seen {
        let seen = Mutex(Seen())
        try worker.start {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            let niceness = WorkerThreadTests.threadNiceness()
            seen.withLock { $0 = Seen(name: name.trimmingCharacters(in: .newlines), niceness: niceness) }
        }
        worker.join()
        return seen.withLock { $0 }
    }

    func testTheThreadIsNamedAndNicerThanTheProcessByItsStep() throws {
        let process = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(getpid()))
        let seen = try Self.run(WorkerThread(name: "pw-test-worker", nicerThanProcess: 3))
        XCTAssertEqual(seen.name, "pw-test-worker")
        XCTAssertEqual(seen.niceness, min(19, process + 3))
        // Linux keeps 15 bytes of a name; a longer one is cut, not refused.
        XCTAssertEqual(try Self.run(WorkerThread(name: "pw-a-name-longer-than-fifteen")).name, "pw-a-name-longe")
    }

    /// A pool or an executor made lazily on an already-niced thread (a blocking-pool thread, say)
    /// still starts its threads at the process's niceness plus their step, not at the creator's.
    func testAWorkerStartedFromANicedThreadIsStillRelativeToTheProcess() throws {
        let process = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(getpid()))
        let creator = WorkerThread(name: "pw-test-creator", nicerThanProcess: 4)
        let inner = Mutex<Result<Seen, SystemError>?>(nil)
        try creator.start {
            let result = Result { () throws(SystemError) in try WorkerThreadTests.run(WorkerThread(name: "pw-test-inner", nicerThanProcess: 2)) }
            inner.withLock { $0 = result }
        }
        creator.join()
        let seen = try XCTUnwrap(inner.withLock { $0 }).get()
        XCTAssertEqual(seen.niceness, min(19, process + 2), "started from a thread at \(process + 4)")
    }

    func testAWakeUpBeforeTheSleepIsKeptAndADeadlineEndsTheSleep() throws {
        let worker = WorkerThread(name: "pw-test-sleeper")
        let outcomes = Mutex<[Bool]>([])
        worker.wake()
        try worker.start {
            // Woken before it slept: returns at once with true.
            let woken = worker.sleep(untilUptimeNanoseconds: DispatchTime.now().uptimeNanoseconds + 30_000_000_000)
            // Nobody wakes it: the 50 ms deadline ends the sleep with false.
            let timedOut = worker.sleep(untilUptimeNanoseconds: DispatchTime.now().uptimeNanoseconds + 50_000_000)
            outcomes.withLock { $0 = [woken, timedOut] }
        }
        worker.join()
        XCTAssertEqual(outcomes.withLock { $0 }, [true, false])
    }
}
