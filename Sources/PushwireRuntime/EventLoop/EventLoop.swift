#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import Synchronization

/// An object registered with an event loop for readiness events on one descriptor.
protocol EventHandler: AnyObject {
    /// Called on the loop's thread with the `epoll_event.events` bits.
    func handleEvents(_ events: UInt32)
}

/// One thread, one edge-triggered epoll instance, one eventfd for wake-ups.
///
/// Everything registered with a loop (listener, connections, timers) is touched only on the loop's
/// thread; other threads reach it with `execute(_:)`, which queues a task and wakes the loop
/// through the eventfd (as swift-subprocess's epoll thread does).
///
/// `@unchecked Sendable`: the mutable state (`handlers`, `timers`, `tickActions`, `running`) is
/// only read and written on the loop's own thread; the cross-thread task queue is a `Mutex`.
public final class EventLoop: @unchecked Sendable {
    /// The loop's position among the server's loops, for logs.
    public let index: Int

    private let epollFD: Int32
    private let wakeFD: Int32
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private var handlers: [EventHandler?] = []
    private var timers = TimerHeap()
    private var tickActions: [() -> Void] = []
    private var endOfIteration: [() -> Void] = []
    private var running = true
    private let tickInterval: UInt64
    private var nextTick: UInt64 = 0
    /// When epoll last returned (monotonic nanoseconds): the arrival time of every request read in
    /// this iteration, for its deadline and the call metrics, so that a call needs no clock read of
    /// its own to start. Loop thread only.
    private(set) var wokeAtNanos: UInt64 = 0
    private let finished = Mutex<Bool>(false)
    private var threadID: pthread_t?

    /// Creates a loop; its thread starts with `start()`.
    /// - Parameter tickInterval: how often the housekeeping actions (timeouts) run, in nanoseconds.
    init(index: Int, tickInterval: UInt64 = 100_000_000) throws(SystemError) {
        self.index = index
        self.tickInterval = tickInterval
        epollFD = try Syscall.epollCreate()
        do {
            wakeFD = try Syscall.eventFD()
        } catch {
            Syscall.close(epollFD)
            throw error
        }
        do {
            try Syscall.epollControl(epollFD, CPW_EPOLL_CTL_ADD, wakeFD, events: CPW_EPOLLIN | CPW_EPOLLET)
        } catch {
            Syscall.close(wakeFD)
            Syscall.close(epollFD)
            throw error
        }
    }

    deinit {
        Syscall.close(wakeFD)
        Syscall.close(epollFD)
    }

    // MARK: Registration (loop thread only)

    func register(fd: Int32, events: UInt32, handler: EventHandler) throws(SystemError) {
        try Syscall.epollControl(epollFD, CPW_EPOLL_CTL_ADD, fd, events: events)
        let slot = Int(fd)
        if slot >= handlers.count {
            handlers.append(contentsOf: repeatElement(nil, count: slot - handlers.count + 1))
        }
        handlers[slot] = handler
    }

    func modify(fd: Int32, events: UInt32) throws(SystemError) {
        try Syscall.epollControl(epollFD, CPW_EPOLL_CTL_MOD, fd, events: events)
    }

    /// Removes `fd` from the loop; call before closing it.
    func deregister(fd: Int32) {
        _ = try? Syscall.epollControl(epollFD, CPW_EPOLL_CTL_DEL, fd, events: 0)
        let slot = Int(fd)
        if slot < handlers.count { handlers[slot] = nil }
    }

    /// Runs `action` on the loop at `deadline` (monotonic nanoseconds); `isLive`, when given,
    /// says whether it still matters, so that the entry can be dropped before then. Loop thread only.
    func schedule(at deadline: UInt64, isLive: (() -> Bool)? = nil, _ action: @escaping () -> Void) {
        timers.schedule(at: deadline, isLive: isLive, action)
    }

    /// Adds an action run on every housekeeping tick (timeouts). Loop thread only.
    func onTick(_ action: @escaping () -> Void) {
        tickActions.append(action)
    }

    /// Runs `action` once after this iteration's events, tasks and timers: how the responses of
    /// many completions are coalesced into one write per connection. Loop thread only.
    func atEndOfIteration(_ action: @escaping () -> Void) {
        endOfIteration.append(action)
    }

    // MARK: Cross-thread

    /// Runs `task` on the loop's thread soon. Callable from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        let wasEmpty = queue.withLock { tasks in
            tasks.append(task)
            return tasks.count == 1
        }
        // Only the task that makes the queue non-empty writes the eventfd: the loop swaps the whole
        // queue out before running it, so a wake-up is never lost and never duplicated needlessly.
        if wasEmpty { Syscall.signalEventFD(wakeFD) }
    }

    /// Asks the loop to return from `run()` after the current iteration. Callable from any thread.
    func stop() {
        execute { [unowned self] in self.running = false }
    }

    // MARK: Running

    /// Starts the loop's thread.
    func start() throws(SystemError) {
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let loop = Unmanaged<EventLoop>.fromOpaque(argument).takeRetainedValue()
            loop.run()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<EventLoop>.fromOpaque(box).release()
            throw SystemError("pthread_create", errno: result)
        }
        threadID = thread
    }

    /// Drops every registration of a loop whose thread never ran, breaking the reference cycles
    /// between the loop and its handlers.
    func discardRegistrations() {
        handlers.removeAll()
        tickActions.removeAll()
        endOfIteration.removeAll()
        timers = TimerHeap()
    }

    /// Waits for the loop's thread to finish.
    func join() {
        if let threadID {
            pthread_join(threadID, nil)
            self.threadID = nil
        }
    }

    private func run() {
        let capacity: Int32 = 256
        let events = UnsafeMutablePointer<cpw_epoll_event>.allocate(capacity: Int(capacity))
        let scratch = UnsafeMutableRawPointer.allocate(
            byteCount: Int(cpw_epoll_event_size()) * Int(capacity), alignment: 16)
        defer {
            events.deallocate()
            scratch.deallocate()
        }
        ShardedCounters.claimShard(index)
        wokeAtNanos = monotonicNanos()
        nextTick = wokeAtNanos &+ tickInterval
        while running {
            let now = monotonicNanos()
            var wake = nextTick
            if let earliest = timers.earliest, earliest < wake { wake = earliest }
            let timeoutMS = wake <= now ? 0 : Int32(min((wake - now + 999_999) / 1_000_000, 1000))
            let count: Int32
            do {
                count = try Syscall.epollWait(epollFD, scratch: scratch, into: events, capacity: capacity, timeoutMS: timeoutMS)
            } catch {
                // epoll_wait fails only on programmer errors (EBADF, EFAULT, EINVAL).
                break
            }
            wokeAtNanos = monotonicNanos()
            for i in 0..<Int(count) {
                let event = events[i]
                let fd = event.fd
                if fd == wakeFD {
                    Syscall.drainEventFD(wakeFD)
                    continue
                }
                let slot = Int(fd)
                if slot < handlers.count, let handler = handlers[slot] {
                    handler.handleEvents(event.events)
                }
            }
            runQueuedTasks()
            runTimers()
            runEndOfIteration()
        }
        runQueuedTasks()
        runEndOfIteration()
        // Break the cycles between the loop and what is registered with it.
        discardRegistrations()
    }

    private func runEndOfIteration() {
        while !endOfIteration.isEmpty {
            let actions = endOfIteration
            endOfIteration.removeAll(keepingCapacity: true)
            for action in actions { action() }
        }
    }

    /// Runs the tasks queued so far, once: tasks they queue run on the next iteration, after
    /// epoll has been polled (their eventfd write makes it return at once), so a task that keeps
    /// rescheduling itself cannot starve the loop's sockets.
    private func runQueuedTasks() {
        var tasks: [@Sendable () -> Void] = []
        queue.withLock { swap(&tasks, &$0) }
        for task in tasks { task() }
    }

    private func runTimers() {
        let now = monotonicNanos()
        while let entry = timers.popExpired(now: now) {
            entry.action()
        }
        if now >= nextTick {
            nextTick = now &+ tickInterval
            for action in tickActions { action() }
        }
    }
}
