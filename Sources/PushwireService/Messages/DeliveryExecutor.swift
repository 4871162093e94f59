import Foundation
import PushwireRuntime
import Synchronization

/// The threads that run the delivery pipeline's tasks (scheduling, fan-outs, rendering, gateway
/// hand-overs), at a lower CPU priority than the threads that answer calls.
///
/// Why: the default executor's threads run at libdispatch's user-initiated priority (niceness −2
/// when the process may raise it), above the event loops, the store's writer and its syncer, so
/// under a stream of CreateMessage calls each call waited behind rendering and file-sink
/// formatting for other messages. That wait is on every call's
/// critical path (answered → next request → next commit), while delivery only has to keep up
/// on average: the outbox is durable, and a message delivered a millisecond later loses nothing.
/// With a niceness of `niceness`, Linux's scheduler gives these threads a smaller share of a busy
/// core and runs a woken call-answering thread first; on an idle machine they run at full speed.
///
/// One executor for the process (like the default one): its threads live as long as it does.
/// Tasks prefer it (`Task(executorPreference:)`); their child tasks inherit the preference, and
/// an actor with an executor of its own still runs there.
final class DeliveryExecutor: TaskExecutor {
    /// The process's delivery threads, started on first use.
    static let shared = DeliveryExecutor(threads: ProcessInfo.processInfo.activeProcessorCount, niceness: niceness)

    /// The delivery threads' niceness: each gets about a third of the CPU share of a default
    /// thread on a contended core (Linux weighs niceness 0 as 1024 and 5 as 335).
    static let niceness: Int32 = 5

    /// Jobs waiting for a thread, first in first out: the array from `head` on (a dequeued slot
    /// is cleared, and the array compacted once half of it is spent).
    private struct Queue {
        var jobs: [UnownedJob?] = []
        var head = 0

        mutating func push(_ job: UnownedJob) { jobs.append(job) }

        mutating func pop() -> UnownedJob? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024, head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    private let queue = Mutex(Queue())
    /// Counts queued jobs: each `enqueue` signals once, each job taken waited for once.
    private let queued = DispatchSemaphore(value: 0)

    private init(threads: Int, niceness: Int32) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in
                // When it cannot be set (a seccomp profile), the thread runs at the default priority.
                try? Syscall.setThreadNiceness(niceness)
                self.run()
            }
            thread.name = "pushwire-delivery-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.push(job) }
        queued.signal()
    }

    private func run() {
        let executor = asUnownedTaskExecutor()
        while true {
            queued.wait()
            // One signal per job: a wait that returns always finds one.
            queue.withLock { $0.pop() }?.runSynchronously(on: executor)
        }
    }
}
