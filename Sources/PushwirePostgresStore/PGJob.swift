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
///
/// A job may be queued as *background* (the delivery pipeline's bookkeeping, which no caller
/// waits on to answer a call). Callers' jobs go first: a batch taken while any wait holds only
/// them, so that a fan-out step's thousands of rows do not lengthen the transaction every
/// caller of the batch waits for; background jobs make batches of their own when no caller's
/// job waits. One that waited `maximumBackgroundWait` joins the next batch whatever waits, so
/// that a stream of calls cannot starve delivery (the SQLite writer's rule, docs/STORE.md).
final class PGJobQueue: @unchecked Sendable {
    // NSCondition guards the lists and `closed` and wakes waiting workers (a Mutex has no wait).
    private let condition = NSCondition()
    private var jobs: [PGJob] = []
    private var head = 0
    private var background: [(job: PGJob, queuedAt: UInt64)] = []
    private var closed = false

    /// How long a background job may be held back behind callers' jobs.
    static let maximumBackgroundWait: UInt64 = 10_000_000

    /// Queues `job` (`background`: see the type's comment); false when the queue is closed.
    func push(_ job: PGJob, background isBackground: Bool = false) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if closed { return false }
        if isBackground {
            background.append((job, DispatchTime.now().uptimeNanoseconds))
        } else {
            jobs.append(job)
        }
        condition.signal()
        return true
    }

    /// Up to `limit` queued jobs, callers' first (see the type's comment), waiting until
    /// `deadline` for one; empty on timeout; nil once the queue is closed and empty.
    func take(limit: Int, until deadline: Date) -> [PGJob]? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count && background.isEmpty {
            if closed { return nil }
            if !condition.wait(until: deadline) {
                if head == jobs.count && background.isEmpty { return closed ? nil : [] }
            }
        }
        var taken: [PGJob] = []
        // Held back long enough: ahead of callers', so that it is not left out again.
        if let oldest = background.first,
           head == jobs.count || DispatchTime.now().uptimeNanoseconds &- oldest.queuedAt >= Self.maximumBackgroundWait {
            let count = min(background.count, limit)
            taken = background[..<count].map(\.job)
            background.removeFirst(count)
        }
        let end = min(jobs.count, head + max(0, limit - taken.count))
        taken += jobs[head..<end]
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
        return jobs.count - head + background.count
    }

    /// Refuses new jobs; workers finish the queued ones and stop.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
