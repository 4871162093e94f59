import CSQLite
import Dispatch
import Foundation
import PushwireStore
import PushwireSystem
import Synchronization

/// The one thread that writes: it runs every queued write in one open transaction, commits it
/// (`synchronous=NORMAL`: the WAL is written, not yet fsynced) and hands the completions to the
/// `WALSyncer`, which runs them once an fsync made the commit durable. A caller is acknowledged
/// only then, so the store keeps `synchronous=FULL`'s promise while the writer runs the next
/// transaction during the fsync.
///
/// Each write runs inside its own SAVEPOINT, so one that fails (a unique name taken, a tag that
/// cannot be incremented) is rolled back alone and the rest of the batch still commits. Adjacent
/// writes that can be merged (`MergeableWrite`: device registrations) run as multi-row statements,
/// with the same per-write outcomes.
///
/// This file holds the writer's state and the calls that queue writes; `GroupCommitWriter+Loop`
/// the thread's loop (when to run, commit or sleep), `GroupCommitWriter+Savepoints` how one write
/// runs inside the batch.
final class GroupCommitWriter: Sendable {
    /// A queued write: runs on the writer's connection inside the batch's transaction and returns
    /// what to do once the transaction is durable (nil) or failed (the error).
    struct Job: Sendable {
        let work: Work

        /// Completes the job with `error` without running it (its transaction could not begin).
        func fail(_ error: StoreError) {
            switch work {
            case .closure(_, let fail): fail(error)
            case .mergeable(let write): write.complete(error)
            }
        }
    }

    struct State {
        /// Writes whose callers wait for them (RPCs answered once they are durable): run first.
        var jobs: [Job] = []
        /// Writes nobody waits on to answer a call (the delivery pipeline's bookkeeping): run while
        /// the disk syncs, never in the way of a commit or of a caller's write.
        var backgroundJobs: [Job] = []
        /// When the oldest of `backgroundJobs` was queued (monotonic nanoseconds).
        var backgroundQueuedAt: UInt64?
        var sleeping = false
        /// While sleeping: wake the writer once this many jobs are queued (the syncer ending a
        /// sync wakes it regardless).
        var wakeAt = 1
        var closed = false
        var transactions = 0
        var writes = 0
        /// How long a COMMIT takes (writing the transaction's pages to the log).
        var commitDuration = SmoothedDuration()
        /// Time spent in COMMIT, summed (for the metrics' commit latency).
        var commitNanoseconds: UInt64 = 0
        /// How long a background job takes to run.
        var backgroundJobDuration = SmoothedDuration()

        var queuedCount: Int { jobs.count + backgroundJobs.count }
    }

    let state = Mutex(State())
    let worker = WorkerThread(name: "pw-store-writer")
    let connection: SQLiteConnection
    let syncer: WALSyncer
    let checkpointer: Checkpointer
    /// A full disk found by the last writes (see `health`).
    let writeHealth = WriteHealth()
    /// `state.closed`, for `health` (asked on every Health/Check call) without the writer's lock.
    private let isClosed = Atomic<Bool>(false)

    /// Starts the writer thread on `connection` (in WAL mode, `synchronous=NORMAL`), which it
    /// then owns, its syncer on the WAL of the database at `connection.path`, and its
    /// checkpointer.
    ///
    /// - Parameter flushWAL: `fdatasync`; a stand-in only in tests of a failing disk.
    init(connection: SQLiteConnection, flushWAL: @escaping @Sendable (Int32) -> Int32 = { fdatasync($0) }) throws(StoreError) {
        self.connection = connection
        let worker = self.worker
        let syncer = try WALSyncer(databasePath: connection.path, flush: flushWAL) { worker.wake() }
        let checkpointer: Checkpointer
        do throws(StoreError) {
            checkpointer = try Checkpointer(path: connection.path)
            do {
                try checkpointer.attach(to: connection)
            } catch {
                checkpointer.close()
                throw SQLiteStore.classify(error, path: connection.path)
            }
        } catch {
            syncer.close()
            throw error
        }
        self.syncer = syncer
        self.checkpointer = checkpointer
        do {
            try worker.start { [self] in self.run() }
        } catch {
            checkpointer.detach(from: connection)
            checkpointer.close()
            syncer.close()
            throw .cannotOpen(location: connection.path, reason: "cannot start the writer's thread: \(error)")
        }
    }

    /// Committed transactions and committed writes so far, and the writes queued now.
    var statistics: StoreStatistics {
        state.withLock {
            StoreStatistics(transactions: $0.transactions, writes: $0.writes, commitNanoseconds: $0.commitNanoseconds, queuedWrites: $0.queuedCount)
        }
    }

    /// Whether writes can succeed: not after a failed fsync (final), not while the disk is full
    /// (until a write succeeds again), nor once closed.
    var health: StoreHealth {
        if let failure = syncer.failure { return .notServing(reason: failure.description) }
        if let full = writeHealth.notServingReason { return .notServing(reason: full) }
        if isClosed.load(ordering: .relaxed) { return .notServing(reason: StoreError.closed.description) }
        return .serving
    }

    /// Runs `body` in the next batch; returns its result once the batch is durable.
    ///
    /// - Parameter background: nobody waits for this write to answer a call (the delivery
    ///   pipeline's bookkeeping): it runs after the callers' writes queued with it, and only when
    ///   it does not hold up a commit (see `run`).
    func write<T: Sendable>(background: Bool = false,
                            _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T) async throws(StoreError) -> T {
        let result: Result<T, StoreError> = await withCheckedContinuation { continuation in
            write(body, background: background) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Runs `body` in the next batch and hands its result to `completion` once the batch is
    /// durable (or failed), on the syncer's thread: `completion` must be quick (hop elsewhere
    /// for real work). For callers that are not in a task, such as the server's event loop,
    /// this saves a task and a continuation per write.
    ///
    /// - Parameter undoesItself: `body` leaves nothing behind when it throws: a single statement
    ///   (SQLite undoes a failed statement's changes by itself; a constraint error aborts the
    ///   statement, not the transaction), or statements of which a failed later one makes `body`
    ///   undo the earlier ones. It then needs no savepoint of its own, which saves two statements
    ///   per write.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T,
        undoesItself: Bool = false,
        background: Bool = false,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let writeHealth = writeHealth
        let job = Job(work: .closure(run: { connection in
            let outcome = undoesItself ? GroupCommitWriter.runAlone(connection, body) : GroupCommitWriter.runInSavepoint(connection, body)
            return { commitError in
                let result = commitError.map { .failure($0) } ?? outcome
                switch result {
                case .success: writeHealth.record(nil)
                case .failure(let error): writeHealth.record(error)
                }
                completion(result)
            }
        }, fail: { completion(.failure($0)) }))
        if !enqueue(job, background: background) { completion(.failure(.closed)) }
    }

    /// Queues `write` for the next batch, where it runs merged with the adjacent queued writes of
    /// its type (see `MergeableWrite`); it completes itself once its transaction is durable (or
    /// failed). No closure per write to queue it: the write carries its data and its completion.
    func write(_ write: some MergeableWrite) {
        if !enqueue(Job(work: .mergeable(write))) { write.complete(.closed) }
    }

    private func enqueue(_ job: Job, background: Bool = false) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            if state.closed { return (false, false) }
            if background {
                if state.backgroundJobs.isEmpty { state.backgroundQueuedAt = DispatchTime.now().uptimeNanoseconds }
                state.backgroundJobs.append(job)
            } else {
                state.jobs.append(job)
            }
            guard state.sleeping, state.queuedCount >= state.wakeAt else { return (true, false) }
            state.sleeping = false
            return (true, true)
        }
        if wake { worker.wake() }
        return accepted
    }

    /// Stops accepting writes, finishes the queued ones and waits for the thread to end.
    func close() {
        let wasOpen = state.withLock { state -> Bool in
            if state.closed { return false }
            state.closed = true
            return true
        }
        guard wasOpen else { return }
        isClosed.store(true, ordering: .relaxed)
        worker.stopAndWait()
    }
}
