import CSQLite
import Dispatch
import PushwireStore

/// The writer thread's loop: when to run queued writes, commit the open transaction or sleep,
/// around the syncer's fsync in flight (pipelined group commit).
extension GroupCommitWriter {
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

    /// The writer thread's loop, until `close`.
    func run() {
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
