import Foundation

/// A thread of the store's own (the WAL syncer, the completion runner, the checkpointer): named,
/// put to sleep until it is woken, and joined when its owner closes. Each owner keeps its own
/// state behind its own lock and decides when its loop ends; this type is the thread, the wake-up
/// and the join they all had a copy of.
///
/// A wake-up is never lost: `wake()` before `sleep()` makes that `sleep()` return at once (a
/// counting semaphore), so an owner may check its state, then sleep, without holding its lock.
final class StoreWorker: Sendable {
    private let name: String
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// A worker whose thread is not started yet (`start`): its owner finishes initializing first.
    init(name: String) {
        self.name = name
    }

    /// Starts the thread, which runs `body` (the owner's loop) and then counts as stopped.
    func start(_ body: @escaping @Sendable () -> Void) {
        let stopped = self.stopped
        let thread = Thread {
            body()
            stopped.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Wakes the thread from its `sleep()` (or makes its next one return at once).
    func wake() { wakeUp.signal() }

    /// On the worker's thread: waits for a `wake()`.
    func sleep() { wakeUp.wait() }

    /// Wakes the thread (whose loop must then see that it is to end) and waits until it has.
    func stopAndWait() {
        wakeUp.signal()
        stopped.wait()
    }
}
