import Synchronization

/// The jobs handed to a connection client's thread, and whether that thread was told to stop:
/// the one place where other threads meet a client.
///
/// Other threads call `submit` and `stop`; the client's thread calls `take(into:)` each round and
/// `takeRemaining` when it shuts down. `wake` runs while the lock is held and only while not
/// stopping, so once the thread has seen `stopping` it may free what `wake` uses (a libcurl
/// multi handle, a pipe) with no wake-up racing the release.
final class JobInbox: Sendable {
    private struct State {
        var pending: [APNsJob] = []
        var stopping = false
    }

    private let state = Mutex(State())

    /// Queues `jobs` for the thread, waking it when the queue was empty (it takes every pending job
    /// at once, so one wake-up per drain is enough). After `stop`, the jobs complete at once with
    /// `.retry`.
    func submit(_ jobs: [APNsJob], wake: () -> Void) {
        guard !jobs.isEmpty else { return }
        let accepted = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            if state.pending.isEmpty {
                // Takes the array as it is: no copy of each job (and of its references).
                state.pending = jobs
                wake()
            } else {
                state.pending.append(contentsOf: jobs)
            }
            return true
        }
        if !accepted {
            for job in jobs { job.complete(.retry(reason: "gateway shut down", after: nil)) }
        }
    }

    /// Wakes the thread without jobs (something it waits for happened), unless it is stopping.
    func nudge(wake: () -> Void) {
        state.withLock { state in
            if !state.stopping { wake() }
        }
    }

    /// Tells the thread to stop (once).
    func stop(wake: () -> Void) {
        state.withLock { state in
            guard !state.stopping else { return }
            state.stopping = true
            wake()
        }
    }

    /// Whether `stop` was called.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Moves the jobs queued since the last call to the end of `queue` and says whether the thread
    /// should stop. An empty `queue` trades storage with the inbox instead: no job is copied.
    func take(into queue: inout [APNsJob]) -> Bool {
        state.withLock { state in
            if queue.isEmpty {
                swap(&queue, &state.pending)
            } else {
                queue.append(contentsOf: state.pending)
                state.pending.removeAll(keepingCapacity: true)
            }
            return state.stopping
        }
    }

    /// The jobs still queued, for the thread's shutdown.
    func takeRemaining() -> [APNsJob] {
        state.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
    }
}
