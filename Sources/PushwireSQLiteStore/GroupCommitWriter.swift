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

    private struct State {
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

    private let state = Mutex(State())
    private let worker = WorkerThread(name: "pw-store-writer")
    private let connection: SQLiteConnection
    private let syncer: WALSyncer
    private let checkpointer: Checkpointer
    /// A full disk found by the last writes (see `health`).
    private let writeHealth = WriteHealth()

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
        if state.withLock({ $0.closed }) { return .notServing(reason: StoreError.closed.description) }
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
    /// - Parameter isOneStatement: `body` runs a single statement. It then needs no savepoint of
    ///   its own: SQLite undoes a failed statement's changes by itself (a constraint error aborts
    ///   the statement, not the transaction), which saves two statements per write.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T,
        isOneStatement: Bool = false,
        background: Bool = false,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let writeHealth = writeHealth
        let job = Job(work: .closure(run: { connection in
            let outcome = isOneStatement ? GroupCommitWriter.runAlone(connection, body) : GroupCommitWriter.runInSavepoint(connection, body)
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

    private static func runAlone<T>(_ connection: SQLiteConnection,
                                    _ body: (SQLiteConnection) throws(StoreError) -> T) -> Result<T, StoreError> {
        do {
            return .success(try body(connection))
        } catch {
            noteAbort(error, on: connection)
            return .failure(error)
        }
    }

    private static func runInSavepoint<T>(_ connection: SQLiteConnection,
                                          _ body: (SQLiteConnection) throws(StoreError) -> T) -> Result<T, StoreError> {
        do {
            try connection.statement("SAVEPOINT job" as StaticString).run()
        } catch {
            return .failure(error.store)
        }
        do {
            let value = try body(connection)
            try sql { () throws(SQLiteError) in try connection.statement("RELEASE job" as StaticString).run() }
            return .success(value)
        } catch {
            noteAbort(error, on: connection)
            // Undo this job only; the rest of the batch stays.
            _ = try? connection.statement("ROLLBACK TO job" as StaticString).run()
            _ = try? connection.statement("RELEASE job" as StaticString).run()
            return .failure(error)
        }
    }


    /// Notes `error` as what ended the open transaction when SQLite rolled all of it back (not
    /// just the failed statement): then every job that ran in it is undone (see `run`).
    static func noteAbort(_ error: StoreError, on connection: SQLiteConnection) {
        if connection.isAutocommit, connection.transactionAbort == nil { connection.transactionAbort = error }
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
        worker.stopAndWait()
    }

    /// What the writer does next.
    private enum Step {
        case stop
        /// Sleep until a job arrives, the syncer becomes idle or, when given, that moment
        /// (monotonic nanoseconds) comes.
        case sleep(until: UInt64?)
        /// Run these jobs in the open transaction (opening one first if needed). Background ones
        /// (queued since `queuedAt`) stop early for a caller's write unless they are overdue.
        case run([Job], background: Bool, queuedAt: UInt64? = nil, overdue: Bool = false)
        /// Commit the open transaction and hand its completions to the syncer.
        case commit
    }

    /// The longest a background write waits for a gap before it runs ahead of callers' writes: at
    /// about two or three commits' time, delivery keeps up with a stream of CreateMessage calls
    /// (a message delivered 10 ms later is no loss; a backlog that only grows is).
    static let maximumBackgroundWait: UInt64 = 10_000_000

    /// The most jobs one transaction holds before it commits even while the syncer is busy (the
    /// syncer then covers several commits with one fsync): bounds the transaction's size.
    static let maximumJobsPerTransaction = 4096

    /// While its transaction waits for the syncer, the writer sleeps until this many jobs are
    /// queued rather than waking for each: a wake-up costs more than running a job, and the jobs
    /// cannot be acknowledged before the sync in flight ends anyway.
    static let jobsPerWakeUpWhileSyncing = 16

    private func run() {
        // Pipelined group commit. Jobs run as they arrive inside one open transaction; it commits
        // as soon as a commit's fsync could start (`commitTime`: when the syncer is idle, or just
        // before its fsync in flight is expected to end), even between two queued jobs. While an
        // fsync is in flight the writer keeps running newly queued jobs in the next transaction
        // instead of waiting, so SQLite's work overlaps the disk's, and each fsync covers
        // everything that arrived during the previous one. With a slow disk transactions grow;
        // with a fast one they commit almost at once. Callers' writes run before background ones,
        // which fill the time the disk syncs (`write(background:)`).
        // The completions of the jobs run in the open transaction; a transaction is open exactly
        // when there are some (a job is only run inside one, and each leaves a completion).
        var open: [@Sendable (StoreError?) -> Void] = []
        while true {
            let step = state.withLock { state -> Step in
                let room = open.count < Self.maximumJobsPerTransaction
                // Background writes that found no room for `maximumBackgroundWait` go first, so
                // that a stream of callers' writes cannot starve them (and delivery with them).
                if let queuedAt = state.backgroundQueuedAt, room,
                   DispatchTime.now().uptimeNanoseconds >= queuedAt + Self.maximumBackgroundWait {
                    let jobs = state.backgroundJobs
                    state.backgroundJobs.removeAll(keepingCapacity: true)
                    state.backgroundQueuedAt = nil
                    return .run(jobs, background: true, queuedAt: queuedAt, overdue: true)
                }
                // Callers' writes first: each of them holds an answer until its commit is durable.
                if !state.jobs.isEmpty, room {
                    let jobs = state.jobs
                    state.jobs.removeAll(keepingCapacity: true)
                    return .run(jobs, background: false)
                }
                let commitAt = commitTime(state)
                if !open.isEmpty, state.closed || !room || commitAt == nil { return .commit }
                // Background writes fill the wait for the disk, unless one would still run when the
                // commit comes due (the disk would then wait for it).
                if !state.backgroundJobs.isEmpty, room {
                    let endsBy = DispatchTime.now().uptimeNanoseconds + state.backgroundJobDuration.nanoseconds
                    if state.closed || (commitAt.map { endsBy <= $0 } ?? true) {
                        let jobs = state.backgroundJobs
                        let queuedAt = state.backgroundQueuedAt
                        state.backgroundJobs.removeAll(keepingCapacity: true)
                        state.backgroundQueuedAt = nil
                        return .run(jobs, background: true, queuedAt: queuedAt)
                    }
                }
                if !open.isEmpty || !state.backgroundJobs.isEmpty {
                    state.sleeping = true
                    // Woken early only for a caller's write, which may still make this commit.
                    state.wakeAt = state.backgroundJobs.count + Self.jobsPerWakeUpWhileSyncing
                    let overdueAt = state.backgroundQueuedAt.map { $0 + Self.maximumBackgroundWait }
                    let wakeAt = [commitAt == .max ? nil : commitAt, overdueAt].compactMap { $0 }.min()
                    return .sleep(until: wakeAt)
                }
                if state.closed { return .stop }
                state.sleeping = true
                state.wakeAt = 1
                return .sleep(until: nil)
            }
            switch step {
            case .stop:
                checkpointer.detach(from: connection)
                checkpointer.close()
                syncer.close()
                if syncer.failure == nil { checkpointOnClose() }
                return
            case .sleep(let deadline):
                if let deadline {
                    worker.sleep(untilUptimeNanoseconds: deadline)
                } else {
                    worker.sleep()
                }
                state.withLock { $0.sleeping = false }
            case .run(let jobs, let background, let queuedAt, let overdue):
                if open.isEmpty, let failure = syncer.failure ?? begin() {
                    for job in jobs { job.fail(failure) }
                    continue
                }
                // A commit that comes due while the jobs run (the syncer went idle, or its fsync is
                // about to end) stops them: what ran commits, the rest goes to the next transaction.
                // One already due when they start waits for them: they are all that is queued.
                // Background jobs also stop for a caller's write, which runs first.
                let (dueAtStart, idleAtStart) = state.withLock { (commitTime($0) == nil, syncer.progress == .idle) }
                var commitCameDue = false
                let startedAt = DispatchTime.now().uptimeNanoseconds
                let ran = GroupCommitWriter.runJobs(jobs, on: connection, into: &open, health: writeHealth) { [self] in
                    state.withLock { state in
                        commitCameDue = (!idleAtStart && syncer.progress == .idle) || (!dueAtStart && commitTime(state) == nil)
                        return commitCameDue || (background && !overdue && !state.jobs.isEmpty)
                    }
                }
                let took = DispatchTime.now().uptimeNanoseconds - startedAt
                // SQLite rolled the whole transaction back (a full disk, an I/O error): every job
                // run in it is undone, so each fails with that error now; the next job begins a
                // new transaction. Committing would fail them all with "no transaction is
                // active", and jobs run meanwhile would have committed on their own, unsynced.
                var undone = 0
                if let abort = connection.transactionAbort ?? (connection.isAutocommit && !open.isEmpty
                    ? .internalError("SQLite rolled the transaction back") : nil) {
                    connection.transactionAbort = nil
                    undone = open.count
                    for complete in open { complete(abort) }
                    open.removeAll(keepingCapacity: true)
                }
                state.withLock { state in
                    state.writes += ran - undone
                    if background {
                        if ran > 0 { state.backgroundJobDuration.add(took / UInt64(ran)) }
                        if ran < jobs.count {
                            state.backgroundJobs.insert(contentsOf: jobs[ran...], at: 0)
                            state.backgroundQueuedAt = queuedAt ?? DispatchTime.now().uptimeNanoseconds
                        }
                    } else if ran < jobs.count {
                        state.jobs.insert(contentsOf: jobs[ran...], at: 0)
                    }
                }
                if commitCameDue, !open.isEmpty { commit(&open) }
            case .commit:
                commit(&open)
            }
        }
    }

    /// A clean stop copies the whole log into the database file and empties it: otherwise every
    /// write since the last checkpoint stays in the log only (the file stayed 4 KB), and the next
    /// start depends on recovering it, with no second copy should the log be damaged (issue 16).
    /// Idle readers do not hold it up; should it find the log busy anyway (`busy` in its row),
    /// the next start recovers the log as before.
    private func checkpointOnClose() {
        do {
            let row = try connection.statement("PRAGMA wal_checkpoint(TRUNCATE)")
            defer { row.reset() }
            if try row.step(), row.int(0) != 0 {
                SQLiteDiagnostics.report(code: SQLITE_BUSY, message: "the checkpoint at close found the log busy; the next start recovers it")
            }
        } catch {
            SQLiteDiagnostics.report(code: error.code, message: "the checkpoint at close failed: \(error.description)")
        }
    }

    /// When to commit the open transaction: nil for now, `.max` for once the syncer is idle.
    ///
    /// Now when the syncer is idle. While an fsync is in flight, shortly before it is expected to
    /// end, by as long as a COMMIT takes: the commit is then written when the disk becomes free, and
    /// the syncer starts its fsync at once instead of idling through a wake-up and a COMMIT. Jobs
    /// arriving after that go to the next transaction. Never while a committed batch already
    /// waits for the next fsync: that one will cover only what is committed before it starts.
    private func commitTime(_ state: State) -> UInt64? {
        switch syncer.progress {
        case .idle:
            return nil
        case .queued:
            return .max
        case .syncing(let expectedEnd):
            let commitAt = expectedEnd - min(expectedEnd, state.commitDuration.nanoseconds)
            return DispatchTime.now().uptimeNanoseconds >= commitAt ? nil : commitAt
        }
    }

    /// Opens the batch's transaction; the error when it cannot.
    private func begin() -> StoreError? {
        do {
            try connection.statement("BEGIN IMMEDIATE" as StaticString).run()
            return nil
        } catch {
            return error.store
        }
    }

    /// Commits the open transaction and hands `completions` to the syncer, which runs them once
    /// the commit is durable; when the COMMIT fails, rolls back and fails them all at once. Leaves
    /// `completions` empty: no transaction is open after it.
    private func commit(_ completions: inout [@Sendable (StoreError?) -> Void]) {
        defer { completions.removeAll(keepingCapacity: true) }
        let startedAt = DispatchTime.now().uptimeNanoseconds
        do {
            try connection.statement("COMMIT" as StaticString).run()
        } catch {
            _ = try? connection.execute("ROLLBACK")
            state.withLock { $0.writes -= completions.count }
            for complete in completions { complete(error.store) }
            return
        }
        let took = DispatchTime.now().uptimeNanoseconds - startedAt
        state.withLock { state in
            state.transactions += 1
            state.commitNanoseconds &+= took
            state.commitDuration.add(took)
        }
        syncer.submit(completions)
    }
}

