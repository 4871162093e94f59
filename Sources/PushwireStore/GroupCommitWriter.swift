import Dispatch
import Foundation
import Synchronization

/// The one thread that writes: it takes every queued write, runs them in one transaction, commits
/// (fsync, `synchronous=FULL`), and only then completes each of them.
///
/// Each write runs inside its own SAVEPOINT, so one that fails (a unique name taken, a tag that
/// cannot be incremented) is rolled back alone and the rest of the batch still commits. Adjacent
/// writes that can be merged (`MergeableWrite`: device registrations) run as multi-row statements,
/// with the same per-write outcomes.
final class GroupCommitWriter: Sendable {
    /// A queued write: runs on the writer's connection inside the batch's transaction and returns
    /// what to do once the transaction committed (nil) or failed (the error).
    struct Job: Sendable {
        let work: Work
        /// Not counted when the writer waits for the next round's jobs (see `run`): its caller
        /// does not send another write as soon as this one completes (a fan-out's step, whose
        /// next write waits for a gateway), so waiting for it only delays everyone else.
        var isBackground = false

        /// Completes the job with `error` without running it (the batch could not begin).
        func fail(_ error: StoreError) {
            switch work {
            case .closure(_, let fail): fail(error)
            case .mergeable(let write): write.complete(error)
            }
        }
    }

    private struct State {
        var jobs: [Job] = []
        /// Jobs in `jobs` that are not `isBackground`.
        var foreground = 0
        var sleeping = false
        /// While sleeping: wake the writer once this many jobs are queued.
        var wakeAt = 1
        var closed = false
        var transactions = 0
        var writes = 0
    }

    private let state = Mutex(State())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let connection: SQLiteConnection

    /// Starts the writer thread on `connection`, which it then owns.
    init(connection: SQLiteConnection) {
        self.connection = connection
        let thread = Thread { [self] in self.run() }
        thread.name = "pushwire-store-writer"
        thread.start()
    }

    /// Committed transactions and committed writes so far.
    var statistics: StoreStatistics {
        state.withLock { StoreStatistics(transactions: $0.transactions, writes: $0.writes) }
    }

    /// Runs `body` in the next batch; returns its result once the batch is durable.
    ///
    /// - Parameter isBackground: see `Job.isBackground`.
    func write<T: Sendable>(isBackground: Bool = false,
                            _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T) async throws(StoreError) -> T {
        let result: Result<T, StoreError> = await withCheckedContinuation { continuation in
            write(body, isBackground: isBackground) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Runs `body` in the next batch and hands its result to `completion` once the batch is
    /// durable (or failed), on the writer's thread: `completion` must be quick (hop elsewhere
    /// for real work). For callers that are not in a task, such as the server's event loop,
    /// this saves a task and a continuation per write.
    ///
    /// - Parameter isOneStatement: `body` runs a single statement. It then needs no savepoint of
    ///   its own: SQLite undoes a failed statement's changes by itself (a constraint error aborts
    ///   the statement, not the transaction), which saves two statements per write.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T,
        isOneStatement: Bool = false,
        isBackground: Bool = false,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let job = Job(work: .closure(run: { connection in
            let outcome = isOneStatement ? GroupCommitWriter.runAlone(connection, body) : GroupCommitWriter.runInSavepoint(connection, body)
            return { commitError in completion(commitError.map { .failure($0) } ?? outcome) }
        }, fail: { completion(.failure($0)) }), isBackground: isBackground)
        if !enqueue(job) { completion(.failure(.closed)) }
    }

    /// Queues `write` for the next batch, where it runs merged with the adjacent queued writes of
    /// its type (see `MergeableWrite`); it completes itself once the batch is durable (or failed).
    /// No closure per write: the write carries its data and its completion.
    func write(_ write: some MergeableWrite, isBackground: Bool = false) {
        if !enqueue(Job(work: .mergeable(write), isBackground: isBackground)) { write.complete(.closed) }
    }

    private static func runAlone<T>(_ connection: SQLiteConnection,
                                    _ body: (SQLiteConnection) throws(StoreError) -> T) -> Result<T, StoreError> {
        do {
            return .success(try body(connection))
        } catch {
            return .failure(mapped(error))
        }
    }

    private static func runInSavepoint<T>(_ connection: SQLiteConnection,
                                          _ body: (SQLiteConnection) throws(StoreError) -> T) -> Result<T, StoreError> {
        do {
            try connection.statement("SAVEPOINT job" as StaticString).run()
        } catch {
            return .failure(.sqlite(error))
        }
        do {
            let value = try body(connection)
            try sql { () throws(SQLiteError) in try connection.statement("RELEASE job" as StaticString).run() }
            return .success(value)
        } catch {
            // Undo this job only; the rest of the batch stays.
            _ = try? connection.statement("ROLLBACK TO job" as StaticString).run()
            _ = try? connection.statement("RELEASE job" as StaticString).run()
            return .failure(mapped(error))
        }
    }

    /// A constraint violation is a conflict (a unique name taken); other errors pass unchanged.
    static func mapped(_ error: StoreError) -> StoreError {
        if case .sqlite(let sqliteError) = error, sqliteError.primaryCode == 19 /* SQLITE_CONSTRAINT */ {
            return .conflict(sqliteError.message)
        }
        return error
    }

    private func enqueue(_ job: Job) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            if state.closed { return (false, false) }
            state.jobs.append(job)
            if !job.isBackground { state.foreground += 1 }
            // A background job wakes a writer that sleeps for want of any job, not one that
            // waits for the rest of a round.
            if state.sleeping, job.isBackground ? state.wakeAt == 0 : state.foreground >= state.wakeAt {
                state.sleeping = false
                return (true, true)
            }
            return (true, false)
        }
        if wake { wakeUp.signal() }
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
        wakeUp.signal()
        stopped.wait()
    }

    /// What the writer does next.
    private enum Step {
        case stop
        /// Sleep until woken, or until the deadline (uptime nanoseconds) when there is one.
        case sleep(until: UInt64?)
        case commit([Job])
    }

    /// The longest the writer holds queued jobs back for the rest of a round (see `run`).
    static let maximumPatienceNanos: UInt64 = 5_000_000

    private func run() {
        // Group commit with patience, as PostgreSQL's commit_delay: when a batch commits, the
        // callers it completes usually send their next write right away (a device registering,
        // a client keeping 64 calls in flight). Committing whatever is queued at once splits them
        // into two alternating half batches, each paying a full fsync. So after a commit the
        // writer expects as many jobs as were in play (the batch it completed plus those queued
        // meanwhile) and waits for them, but never longer than the last COMMIT took (its fsync,
        // capped): waiting is worth at most the fsync that a second, smaller batch would cost.
        // So when fsync is cheap and CPU is the bound, the writer hardly waits, and the callers'
        // work overlaps its own; when fsync is dear, each one carries a full round. A sequential
        // caller, whose next write completes the expected count by itself, never waits.
        var expected = 1
        var deadline: UInt64 = 0
        while true {
            let step = state.withLock { state -> Step in
                if state.jobs.isEmpty {
                    if state.closed { return .stop }
                    state.sleeping = true
                    state.wakeAt = 0
                    return .sleep(until: nil)
                }
                if state.foreground < expected, !state.closed, DispatchTime.now().uptimeNanoseconds < deadline {
                    state.sleeping = true
                    state.wakeAt = expected
                    return .sleep(until: deadline)
                }
                state.sleeping = false
                let jobs = state.jobs
                state.jobs.removeAll(keepingCapacity: true)
                state.foreground = 0
                return .commit(jobs)
            }
            switch step {
            case .stop:
                stopped.signal()
                return
            case .sleep(until: nil):
                wakeUp.wait()
            case .sleep(until: let until?):
                // A signal that arrives after the timeout is left in the semaphore and only
                // causes one extra pass through this loop.
                _ = wakeUp.wait(timeout: DispatchTime(uptimeNanoseconds: until))
            case .commit(let batch):
                let commitNanos = commit(batch)
                let queued = state.withLock { $0.foreground }
                expected = batch.reduce(0) { $0 + ($1.isBackground ? 0 : 1) } + queued
                deadline = DispatchTime.now().uptimeNanoseconds + min(commitNanos, Self.maximumPatienceNanos)
            }
        }
    }

    /// Runs and commits `batch`, then completes its jobs; returns how long the COMMIT (the WAL
    /// write and its fsync) took, in nanoseconds.
    private func commit(_ batch: [Job]) -> UInt64 {
        do {
            try connection.statement("BEGIN IMMEDIATE" as StaticString).run()
        } catch {
            for job in batch { job.fail(.sqlite(error)) }
            return 0
        }
        let completions = GroupCommitWriter.runJobs(batch, on: connection)
        var commitError: StoreError?
        let started = DispatchTime.now().uptimeNanoseconds
        defer { for complete in completions { complete(commitError) } }
        defer {
            if commitError == nil {
                state.withLock {
                    $0.transactions += 1
                    $0.writes += batch.count
                }
            }
        }
        do {
            try connection.statement("COMMIT" as StaticString).run()
            return DispatchTime.now().uptimeNanoseconds - started
        } catch {
            commitError = .sqlite(error)
            _ = try? connection.execute("ROLLBACK")
            return 0
        }
    }
}

/// How much the store's writer has done: for tests and metrics.
public struct StoreStatistics: Sendable, Equatable {
    /// Transactions committed.
    public var transactions: Int
    /// Writes committed (several per transaction under load).
    public var writes: Int
}
