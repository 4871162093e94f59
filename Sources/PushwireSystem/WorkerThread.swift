#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import Dispatch

/// A long-lived thread of the process's own: named, optionally nicer than the process, put to
/// sleep until it is woken, and joined when its owner closes. The store's writer, WAL syncer,
/// completion runner and checkpointer, the server's blocking pools, the delivery executor and the
/// signal watchers run on it; each owner keeps its own state behind its own lock and decides when
/// its loop ends. This type is the thread, the wake-up and the join they all had a copy of.
///
/// A wake-up is never lost: `wake()` before `sleep()` makes that `sleep()` return at once (a
/// counting semaphore), so an owner may check its state, then sleep, without holding its lock.
/// Owners of several threads that take jobs from one queue (a pool) wait on the queue's own
/// counting semaphore instead, one signal per job, and use the worker for the thread, its name,
/// its priority and the join.
public final class WorkerThread: Sendable {
    /// The thread's name, as the kernel shows it (`top -H`, `/proc/PID/task/*/comm`): Linux keeps
    /// at most 15 bytes of it.
    public let name: String
    /// How much nicer than the process the thread runs; 0 leaves the niceness it inherits.
    private let nicerThanProcess: Int32
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// A worker whose thread is not started yet (`start`): its owner finishes initializing first.
    ///
    /// - Parameters:
    ///   - name: what `top -H` shows; keep it within 15 bytes (longer names are cut there).
    ///   - nicerThanProcess: run this much nicer than the process's main thread (Linux weighs
    ///     niceness 0 as 1024 and 5 as 335), so that on a contended core the threads answering
    ///     calls run first. When it cannot be set (a seccomp profile), the thread runs at the
    ///     niceness it inherited.
    public init(name: String, nicerThanProcess: Int32 = 0) {
        self.name = name
        self.nicerThanProcess = nicerThanProcess
    }

    /// Starts the thread, which runs `body` (the owner's loop) and then counts as stopped.
    ///
    /// - Throws: `SystemError` from `pthread_create` (out of threads or memory); `body` is then
    ///   not run.
    public func start(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let stopped = self.stopped
        let nicer = nicerThanProcess
        let name = self.name
        let start = WorkerStart {
            _ = cpw_set_thread_name(name)
            if nicer != 0 { try? Syscall.setThreadNiceness(aboveProcessBy: nicer) }
            body()
            stopped.signal()
        }
        let box = Unmanaged.passRetained(start).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<WorkerStart>.fromOpaque(argument).takeRetainedValue().body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<WorkerStart>.fromOpaque(box).release()
            throw SystemError("pthread_create", errno: result)
        }
        pthread_detach(thread)
    }

    /// Wakes the thread from its `sleep()` (or makes its next one return at once).
    public func wake() { wakeUp.signal() }

    /// On the worker's thread: waits for a `wake()`.
    public func sleep() { wakeUp.wait() }

    /// On the worker's thread: waits for a `wake()` or until `deadline` (monotonic nanoseconds,
    /// `DispatchTime.now().uptimeNanoseconds`); whether it was woken.
    @discardableResult
    public func sleep(untilUptimeNanoseconds deadline: UInt64) -> Bool {
        wakeUp.wait(timeout: DispatchTime(uptimeNanoseconds: deadline)) == .success
    }

    /// Waits until the thread's loop has returned (its owner told it to end its own way).
    public func join() { stopped.wait() }

    /// Wakes the thread (whose loop must then see that it is to end) and waits until it has.
    public func stopAndWait() {
        wakeUp.signal()
        stopped.wait()
    }
}

/// What a new thread runs, carried through `pthread_create`'s one pointer.
private final class WorkerStart: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
