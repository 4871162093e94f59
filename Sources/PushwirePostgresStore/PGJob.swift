import Foundation
import PushwireStore

/// A unit of work for a `PGWorker`: run on its connection, then completed once with the outcome.
/// For the writer, `run` happens inside the batch's transaction and `complete` only after COMMIT.
protocol PGJob: AnyObject, Sendable {
    /// Runs the job's statements. Called on the worker's thread, possibly more than once for a
    /// write (a batch whose transaction was rolled back because another job failed is replayed),
    /// so it must not have effects outside the connection until `complete`.
    func run(on connection: PGConnection) throws(StoreError)
    /// Delivers the outcome (nil: success) to the caller; called exactly once.
    func complete(_ error: StoreError?)
}

/// A job from a closure, whose value is kept from its last `run` until `complete`.
///
/// `@unchecked Sendable`: `value` is written by `run` and read by `complete`, both on the worker's
/// one thread, one after the other.
final class ClosureJob<T: Sendable>: PGJob, @unchecked Sendable {
    private let body: @Sendable (PGConnection) throws(StoreError) -> T
    private let completion: @Sendable (Result<T, StoreError>) -> Void
    private var value: T?

    init(_ body: @escaping @Sendable (PGConnection) throws(StoreError) -> T,
         completion: @escaping @Sendable (Result<T, StoreError>) -> Void) {
        self.body = body
        self.completion = completion
    }

    func run(on connection: PGConnection) throws(StoreError) {
        value = try body(connection)
    }

    func complete(_ error: StoreError?) {
        if let error {
            completion(.failure(error))
        } else if let value {
            completion(.success(value))
        } else {
            completion(.failure(.unavailable("the write was not run")))
        }
    }
}

/// Jobs waiting for a worker: FIFO, shared by the workers of a pool.
final class PGJobQueue: @unchecked Sendable {
    // NSCondition guards `jobs` and `closed` and wakes waiting workers (a Mutex has no wait).
    private let condition = NSCondition()
    private var jobs: [PGJob] = []
    private var head = 0
    private var closed = false

    /// Queues `job`; false when the queue is closed.
    func push(_ job: PGJob) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if closed { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Up to `limit` queued jobs, waiting until `deadline` for one; empty on timeout; nil once
    /// the queue is closed and empty.
    func take(limit: Int, until deadline: Date) -> [PGJob]? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count {
            if closed { return nil }
            if !condition.wait(until: deadline) {
                if head == jobs.count { return closed ? nil : [] }
            }
        }
        let end = min(jobs.count, head + limit)
        let taken = Array(jobs[head..<end])
        head = end
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 {
            jobs.removeFirst(head)
            head = 0
        }
        return taken
    }

    /// How many jobs wait.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    /// Refuses new jobs; workers finish the queued ones and stop.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
