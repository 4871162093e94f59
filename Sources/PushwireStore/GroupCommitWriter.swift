import Dispatch
import Foundation
import Synchronization

/// The one thread that writes: it takes every queued write, runs them in one transaction, commits
/// (fsync, `synchronous=FULL`), and only then completes each of them.
///
/// Each write runs inside its own SAVEPOINT, so one that fails (a unique name taken, a tag that
/// cannot be incremented) is rolled back alone and the rest of the batch still commits.
final class GroupCommitWriter: Sendable {
    /// A queued write: runs on the writer's connection inside the batch's transaction and returns
    /// what to do once the transaction committed (nil) or failed (the error).
    struct Job: Sendable {
        let run: @Sendable (SQLiteConnection) -> @Sendable (StoreError?) -> Void
        let fail: @Sendable (StoreError) -> Void
    }

    private struct State {
        var jobs: [Job] = []
        var sleeping = false
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
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T) async throws(StoreError) -> T {
        let result: Result<T, StoreError> = await withCheckedContinuation { continuation in
            write(body) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Runs `body` in the next batch and hands its result to `completion` once the batch is
    /// durable (or failed), on the writer's thread: `completion` must be quick (hop elsewhere
    /// for real work). For callers that are not in a task, such as the server's event loop,
    /// this saves a task and a continuation per write.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws(StoreError) -> T,
        completion: @escaping @Sendable (Result<T, StoreError>) -> Void
    ) {
        let job = Job(run: { connection in
            let outcome = GroupCommitWriter.runInSavepoint(connection, body)
            return { commitError in completion(commitError.map { .failure($0) } ?? outcome) }
        }, fail: { completion(.failure($0)) })
        if !enqueue(job) { completion(.failure(.closed)) }
    }

    private static func runInSavepoint<T>(_ connection: SQLiteConnection,
                                          _ body: (SQLiteConnection) throws(StoreError) -> T) -> Result<T, StoreError> {
        do {
            try connection.statement("SAVEPOINT job").run()
        } catch {
            return .failure(.sqlite(error))
        }
        do {
            let value = try body(connection)
            try sql { () throws(SQLiteError) in try connection.statement("RELEASE job").run() }
            return .success(value)
        } catch {
            // Undo this job only; the rest of the batch stays.
            _ = try? connection.statement("ROLLBACK TO job").run()
            _ = try? connection.statement("RELEASE job").run()
            if case .sqlite(let sqliteError) = error, sqliteError.primaryCode == 19 /* SQLITE_CONSTRAINT */ {
                return .failure(.conflict(sqliteError.message))
            }
            return .failure(error)
        }
    }

    private func enqueue(_ job: Job) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            if state.closed { return (false, false) }
            state.jobs.append(job)
            if state.sleeping {
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

    private func run() {
        while true {
            let batch = state.withLock { state -> [Job]? in
                if state.jobs.isEmpty {
                    if state.closed { return nil }
                    state.sleeping = true
                    return []
                }
                let jobs = state.jobs
                state.jobs.removeAll(keepingCapacity: true)
                return jobs
            }
            guard let batch else { break }
            if batch.isEmpty {
                wakeUp.wait()
                continue
            }
            commit(batch)
        }
        stopped.signal()
    }

    private func commit(_ batch: [Job]) {
        do {
            try connection.statement("BEGIN IMMEDIATE").run()
        } catch {
            for job in batch { job.fail(.sqlite(error)) }
            return
        }
        let completions = batch.map { $0.run(connection) }
        var commitError: StoreError?
        do {
            try connection.statement("COMMIT").run()
        } catch {
            commitError = .sqlite(error)
            _ = try? connection.execute("ROLLBACK")
        }
        if commitError == nil {
            state.withLock {
                $0.transactions += 1
                $0.writes += batch.count
            }
        }
        for complete in completions { complete(commitError) }
    }
}

/// How much the store's writer has done: for tests and metrics.
public struct StoreStatistics: Sendable, Equatable {
    /// Transactions committed.
    public var transactions: Int
    /// Writes committed (several per transaction under load).
    public var writes: Int
}
