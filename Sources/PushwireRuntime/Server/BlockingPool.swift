import Dispatch
import PushwireSystem
import Synchronization

/// The server's threads for blocking work (store reads) and for the decoding and checking of
/// large requests, shared fairly between connections.
///
/// Each connection submits into its own `Lane`; the threads take one job from each lane with
/// work in turn (round robin), so a connection with a thousand jobs queued delays another
/// connection's job by at most one job of its own, never by its whole queue. A connection keeps
/// at most a few jobs submitted at once (`ServerConfiguration.maxBlockingCallsPerConnection`) and
/// holds the rest itself, where a Cancel or a deadline can drop them before they cost anything.
///
/// The threads (`WorkerThread`s) run at a lower CPU priority than the event loops (`niceness`
/// nicer than the process), so that on a contended core a loop answering a cheap call runs
/// before a large request's checks. They wait on the pool's one counting semaphore (a signal
/// per job), not on a wake-up each.
final class BlockingPool: Sendable {
    /// One connection's queue of jobs. Its storage is only touched under the pool's lock.
    ///
    /// `@unchecked Sendable`: `jobs`, `head` and `isScheduled` are read and written only inside
    /// `BlockingPool.state.withLock`.
    final class Lane: @unchecked Sendable {
        fileprivate var jobs: [(@Sendable () -> Void)?] = []
        fileprivate var head = 0
        /// Whether the lane is in the pool's ring of lanes with work.
        fileprivate var isScheduled = false

        fileprivate var isEmpty: Bool { head == jobs.count }

        fileprivate func pop() -> (@Sendable () -> Void)? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: jobs.capacity <= 64)
                head = 0
            }
            return job
        }
    }

    private struct State {
        /// Lanes with at least one job, in the order they are served.
        var ring: [Lane?] = []
        var ringHead = 0
        var stopping = false
        /// Jobs submitted and not yet taken by a thread (for /metrics).
        var queuedJobs = 0

        mutating func popLane() -> Lane? {
            guard ringHead < ring.count else { return nil }
            let lane = ring[ringHead]
            ring[ringHead] = nil
            ringHead += 1
            if ringHead == ring.count {
                ring.removeAll(keepingCapacity: true)
                ringHead = 0
            } else if ringHead >= 256, ringHead * 2 >= ring.count {
                ring.removeFirst(ringHead)
                ringHead = 0
            }
            return lane
        }
    }

    /// The HTTP door's blocking calls (MethodInvoker), started on first use and kept for the
    /// process.
    static let httpDoor = BlockingPool(threads: max(4, 2 * ServerConfiguration.defaultThreadCount), name: "pw-http-block")

    /// How much nicer than the process the threads are (Linux weighs niceness 0 as 1024 and 5 as 335).
    static let niceness: Int32 = 5

    private let state = Mutex(State())
    /// Counts queued jobs: each submit signals once, each job taken waited for once.
    private let queued = DispatchSemaphore(value: 0)
    /// The threads that started (`pthread_create` may fail for some when the process is out of
    /// threads; the pool then runs on fewer).
    private let threads = Mutex<[WorkerThread]>([])

    /// Starts `threads` threads named `name-N` (the kernel keeps 15 bytes of a name), `niceness`
    /// nicer than the process: the pool yields to the loops, not to every other process when
    /// pushwired runs niced.
    init(threads: Int, name: String = "pw-blocking") {
        for index in 0..<max(1, threads) {
            let worker = WorkerThread(name: "\(name)-\(index)", nicerThanProcess: BlockingPool.niceness)
            do {
                // Each thread holds the pool (as the jobs' lanes do) until `stop` ends it.
                try worker.start { [self] in self.run() }
                self.threads.withLock { $0.append(worker) }
            } catch {
                continue
            }
        }
    }

    /// Queues `job` at the back of `lane`. Callable from any thread.
    func submit(_ job: @escaping @Sendable () -> Void, to lane: Lane) {
        let accepted = state.withLock { state -> Bool in
            if state.stopping { return false }
            lane.jobs.append(job)
            state.queuedJobs += 1
            if !lane.isScheduled {
                lane.isScheduled = true
                state.ring.append(lane)
            }
            return true
        }
        if accepted { queued.signal() }
    }

    /// Jobs waiting for a thread now (read under the lock the submissions take anyway).
    var queuedJobs: Int { state.withLock { $0.queuedJobs } }

    /// Lets the threads finish the job they are running and exit; queued jobs are dropped (their
    /// connections are closed by then). Waits for the threads.
    func stop() {
        let alreadyStopping = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return state.stopping
        }
        if alreadyStopping { return }
        let threads = self.threads.withLock { $0 }
        for _ in threads { queued.signal() }
        for thread in threads { thread.join() }
    }

    private func run() {
        while true {
            queued.wait()
            let job = state.withLock { state -> (@Sendable () -> Void)?? in
                if state.stopping { return .none }
                // One signal per job: a wait that returns always finds one.
                guard let lane = state.popLane() else { return .some(nil) }
                let job = lane.pop()
                if job != nil { state.queuedJobs -= 1 }
                if lane.isEmpty {
                    lane.isScheduled = false
                } else {
                    state.ring.append(lane)
                }
                return .some(job)
            }
            guard let job else { break }
            job?()
        }
    }
}
