import Foundation
import Glibc
import PushwireStore
import PushwireSystem
import Synchronization

/// Whether the database can be reached, as the workers last found it.
final class PGHealth: Sendable {
    private let state = Mutex<(reachable: Bool, reason: String)>((true, ""))
    /// `state.reachable`, read without the lock: Health/Check asks on every call.
    private let reachable = Atomic<Bool>(true)

    var isReachable: Bool { reachable.load(ordering: .relaxed) }

    /// Why the database is unreachable ("" when it is reachable).
    var reason: String { state.withLock { $0.reason } }

    func up() {
        state.withLock { state in
            state = (true, "")
            reachable.store(true, ordering: .relaxed)
        }
    }

    func down(_ reason: String) {
        state.withLock { state in
            state = (false, reason)
            reachable.store(false, ordering: .relaxed)
        }
    }

    /// The error for jobs that cannot run while the database is down.
    var unavailable: StoreError {
        .unavailable("the database is unreachable (\(reason.isEmpty ? "connection lost" : reason))")
    }
}

/// A thread that owns one connection and runs jobs from a queue with it. The handler runs a batch
/// and returns the jobs it did not complete because the connection turned out to be lost before
/// they did anything (a read, a write batch whose BEGIN failed): those run once more on a new
/// connection, so that the first call after the database came back does not fail on the stale
/// connection. It connects on start;
/// when the connection is lost it fails what it was running with `.unavailable`, and reconnects
/// with backoff (50 ms doubling to 2 s) by itself, jobs failing fast meanwhile. While idle it
/// checks the connection every `idleCheck` so that a database that went away is noticed (and the
/// store reported unhealthy) before the next write.
final class PGWorker: @unchecked Sendable {
    // @unchecked: `connection`, `backoff` and `nextAttempt` are touched only by the worker's own
    // thread; the rest is immutable or Sendable.
    private let url: String
    private let queue: PGJobQueue
    private let batchLimit: Int
    private let health: PGHealth
    private let idleCheck: TimeInterval
    private let handler: (PGConnection, [PGJob]) -> [PGJob]
    private let thread: WorkerThread
    /// The thread's `pthread_self()` once it runs (0 before): how `close` tells it is on it.
    private let threadID = Atomic<UInt>(0)
    private var connection: PGConnection?
    private var backoff: TimeInterval = 0.05
    private var nextAttempt = Date.distantPast

    static let maximumBackoff: TimeInterval = 2
    static let connectTimeout = 5

    /// Starts the worker's thread with an open `connection` (or nil: it connects by itself).
    /// - Parameter name: the thread's name, at most 15 bytes (what Linux keeps).
    /// - Throws: `SystemError` when the thread cannot be started.
    init(name: String, url: String, connection: PGConnection?, queue: PGJobQueue, batchLimit: Int, health: PGHealth,
         idleCheck: TimeInterval = 1, handler: @escaping (PGConnection, [PGJob]) -> [PGJob]) throws(SystemError) {
        self.url = url
        self.queue = queue
        self.batchLimit = batchLimit
        self.health = health
        self.idleCheck = idleCheck
        self.handler = handler
        self.connection = connection
        thread = WorkerThread(name: name)
        try thread.start { [self] in loop() }
    }

    /// Waits for the thread to finish (after `queue.close()`).
    func join() { thread.join() }

    /// Whether the caller runs on this worker's thread (which cannot wait for itself).
    var isCurrentThread: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    private func loop() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        while true {
            let waitUntil = connection == nil ? min(nextAttempt, Date(timeIntervalSinceNow: idleCheck)) : Date(timeIntervalSinceNow: idleCheck)
            guard let jobs = queue.take(limit: batchLimit, until: waitUntil) else { return }
            guard let connection = connect() else {
                let error = health.unavailable
                for job in jobs { job.complete(error) }
                continue
            }
            if jobs.isEmpty {
                // Idle: an empty query is one round trip, enough to learn the server went away.
                do { try connection.execute("") } catch { lost(error) }
                continue
            }
            let retry = handler(connection, jobs)
            if connection.isBroken { lost(PGError(sqlstate: "08006", message: "connection lost", context: "worker")) }
            guard !retry.isEmpty else { continue }
            guard let fresh = connect() else {
                let error = health.unavailable
                for job in retry { job.complete(error) }
                continue
            }
            let failed = handler(fresh, retry)
            if fresh.isBroken { lost(PGError(sqlstate: "08006", message: "connection lost", context: "worker")) }
            let error = health.unavailable
            for job in failed { job.complete(error) }
        }
    }

    /// The connection, opening one if the backoff allows; nil while the database is unreachable.
    private func connect() -> PGConnection? {
        if let connection, !connection.isBroken { return connection }
        if connection != nil { lost(PGError(sqlstate: "08006", message: "connection lost", context: "worker")) }
        guard Date() >= nextAttempt else { return nil }
        do {
            let opened = try PGConnection(url: url, connectTimeout: PGWorker.connectTimeout)
            connection = opened
            backoff = 0.05
            health.up()
            return opened
        } catch {
            health.down(error.message)
            nextAttempt = Date(timeIntervalSinceNow: backoff)
            backoff = min(backoff * 2, PGWorker.maximumBackoff)
            return nil
        }
    }

    private func lost(_ error: PGError) {
        connection = nil
        health.down(error.message)
        nextAttempt = Date()
    }
}
