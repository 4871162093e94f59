import Foundation
import PushwireStore
import PushwireSystem
import Synchronization

/// Runs the completions of synced batches, in the order they were synced, on a thread of its own.
///
/// Why a thread: acknowledging a batch (answering each caller, telling the delivery pipeline of
/// new messages) takes a few microseconds per write, 0.1–1 ms per batch, and while the syncer's
/// thread did it the disk sat idle: the next fsync could not start before the last answer went
/// out. Here it overlaps the next fsync.
final class CompletionRunner: Sendable {
    /// One batch's completions and the outcome of the fsync that covered it.
    private struct Synced {
        let completions: WALSyncer.Completions
        let outcome: StoreError?
    }

    private struct State {
        var queue: [Synced] = []
        var closed = false
    }

    private let state = Mutex(State())
    private let worker = WorkerThread(name: "pw-completions")

    /// Starts the thread; fails when it cannot start (out of threads).
    init() throws(StoreError) {
        do {
            try worker.start { [self] in self.run() }
        } catch {
            throw .internalError("cannot start the store's completion thread: \(error)")
        }
    }

    /// Queues the completions of batches covered by one fsync, with its outcome (nil: durable).
    func complete(_ batches: [WALSyncer.Completions], outcome: StoreError?) {
        state.withLock { state in
            for completions in batches { state.queue.append(Synced(completions: completions, outcome: outcome)) }
        }
        worker.wake()
    }

    /// Runs what is queued, then stops the thread.
    func close() {
        state.withLock { $0.closed = true }
        worker.stopAndWait()
    }

    private func run() {
        var taken: [Synced] = []
        while true {
            let closed = state.withLock { state -> Bool in
                swap(&taken, &state.queue)
                return state.closed
            }
            if taken.isEmpty {
                if closed { break }
                worker.sleep()
                continue
            }
            for synced in taken {
                for complete in synced.completions { complete(synced.outcome) }
            }
            taken.removeAll(keepingCapacity: true)
        }
    }
}
