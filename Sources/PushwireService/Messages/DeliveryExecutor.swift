import Foundation
import PushwireRuntime
import PushwireSystem
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
/// At `niceness` nicer than the process, Linux's scheduler gives these threads a smaller share of
/// a busy core and runs a woken call-answering thread first; on an idle machine they run at full
/// speed. Relative to the process (as the blocking pools are), so that under `nice -n -10
/// pushwired` delivery still yields to the loops and not to every other process of the machine.
///
/// One executor for the process (like the default one): its threads live as long as it does.
/// Tasks prefer it (`Task(executorPreference:)`); their child tasks inherit the preference, and
/// an actor with an executor of its own still runs there.
final class DeliveryExecutor: TaskExecutor {
    /// The process's delivery threads, started on first use.
    static let shared = DeliveryExecutor(threads: ProcessInfo.processInfo.activeProcessorCount)

    /// How much nicer than the process the delivery threads are: each gets about a third of the
    /// CPU share of a default thread on a contended core (Linux weighs niceness 0 as 1024 and 5
    /// as 335).
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
    /// The threads that started: when none could (out of threads), jobs go to the default
    /// executor, at its priority, rather than waiting forever.
    private let startedThreads = Atomic<Int>(0)

    /// Starts `threads` `WorkerThread`s, which wait on the queue's one counting semaphore.
    private init(threads: Int) {
        let workers = (0..<max(1, threads)).map {
            WorkerThread(name: "pw-delivery-\($0)", nicerThanProcess: DeliveryExecutor.niceness)
        }
        for worker in workers {
            do {
                try worker.start { [self] in self.run() }
                startedThreads.add(1, ordering: .relaxed)
            } catch {
                continue
            }
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        guard startedThreads.load(ordering: .relaxed) > 0 else {
            globalConcurrentExecutor.enqueue(job)
            return
        }
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
