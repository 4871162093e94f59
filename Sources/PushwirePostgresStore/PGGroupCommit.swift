import Dispatch
import Foundation
import PushwireStore
import Synchronization

/// Group commit on PostgreSQL: the writer takes every write queued while the last COMMIT was in
/// flight and runs them in one transaction, so a COMMIT (one WAL flush, one round trip) is shared
/// by every caller of the batch. Adjacent device registrations become one multi-row upsert, and
/// adjacent message creations one multi-row INSERT.
///
/// A failing write is undone alone: PostgreSQL aborts the whole transaction at the first error,
/// so the batch is rolled back, the failing write gets its error, and the others run again in a
/// new transaction (writes have no effect outside the connection until they are completed). This
/// costs nothing while writes succeed, unlike a SAVEPOINT and a RELEASE (two more round trips)
/// around each. Every caller is answered only after COMMIT returned; when the connection breaks
/// the batch's callers get `.unavailable` (nothing of it is acknowledged).
///
/// A transaction PostgreSQL aborted as a deadlock victim (40P01) or for a serialization failure
/// (40001) did nothing and is run again whole, up to `maximumRetries` times after a short
/// jittered pause, before its callers get `.unavailable`; nobody was answered before, so
/// nothing is acknowledged twice.
enum PGGroupCommit {
    /// Re-runs of one transaction after a deadlock or serialization failure.
    static let maximumRetries = 3

    /// Whether the connection's last failure is one PostgreSQL asks to retry (the transaction
    /// was aborted as a whole and did nothing).
    static func isRetryable(_ connection: PGConnection) -> Bool {
        connection.lastErrorState == "40P01" || connection.lastErrorState == "40001"
    }

    /// A pause before the `attempt`th re-run (1-based): 2–10 ms doubling per attempt, jittered so
    /// that the two sides of a deadlock do not meet again in step.
    private static func pause(before attempt: Int) {
        let base = 2_000 << min(attempt - 1, 4)
        usleep(UInt32(Int.random(in: base...(base * 5))))
    }

    /// Runs `jobs` as described, completing each once; returns them uncompleted instead when the
    /// connection is found lost at the first BEGIN (nothing was sent: they may run again).
    static func run(_ jobs: [PGJob], on connection: PGConnection, health: PGHealth, statistics: PGCounters) -> [PGJob] {
        var pending = units(jobs)
        var retries = 0
        connection.clearLastError()
        // A batch that is one statement (registrations only, RegisterDevice under load; message
        // creations only, CreateMessage under load) runs alone as its own transaction, one round
        // trip instead of three (BEGIN, it, COMMIT). If it fails, nothing was written and its
        // writes go the usual way, one by one.
        while pending.count == 1, let unit = pending[0] as? PGStatementUnit {
            do throws(StoreError) {
                // Its own transaction: the statement's time includes its COMMIT, counted as such.
                let started = DispatchTime.now().uptimeNanoseconds
                try unit.runAlone(on: connection)
                let elapsed = DispatchTime.now().uptimeNanoseconds &- started
                statistics.value.withLock {
                    $0.transactions += 1
                    $0.writes += unit.jobCount
                    $0.commitNanoseconds &+= elapsed
                }
                unit.complete(nil)
                return []
            } catch {
                if connection.isBroken {
                    // Whether it committed is unknown: an upsert of the same values may run again
                    // on a new connection; new rows' callers are told (nothing acknowledged).
                    if unit.rerunsSafely { return jobs }
                    unit.complete(health.unavailableAfterLoss)
                    return []
                }
                if isRetryable(connection), retries < maximumRetries {
                    retries += 1
                    count(retry: statistics)
                    connection.clearLastError()
                    pause(before: retries)
                    continue
                }
                if error.isUnavailable {
                    unit.complete(error)
                    return []
                }
                guard let parts = unit.split() else {
                    unit.complete(error)
                    return []
                }
                pending = parts
                break
            }
        }
        var first = true
        while !pending.isEmpty {
            do {
                try connection.execute("BEGIN")
            } catch {
                if first, error.isConnectionLost { return jobs }
                fail(pending, error.store(health))
                return []
            }
            first = false
            var failure: (index: Int, error: StoreError)?
            for (index, unit) in pending.enumerated() {
                do throws(StoreError) {
                    try unit.run(on: connection)
                } catch {
                    failure = (index, error)
                    break
                }
            }
            if let (index, error) = failure {
                let retryable = isRetryable(connection)
                try? connection.execute("ROLLBACK")
                if !connection.isBroken, retryable, retries < maximumRetries {
                    // Aborted whole by PostgreSQL (deadlock victim): the same writes again.
                    retries += 1
                    count(retry: statistics)
                    connection.clearLastError()
                    pause(before: retries)
                    continue
                }
                if connection.isBroken || error.isUnavailable {
                    fail(pending, connection.isBroken ? health.unavailableAfterLoss : error)
                    return []
                }
                let unit = pending.remove(at: index)
                if let parts = unit.split() {
                    // Which of the group's writes failed is not known: each runs alone on the next pass.
                    pending.insert(contentsOf: parts, at: index)
                } else {
                    unit.complete(error)
                }
                continue
            }
            let commitStarted = DispatchTime.now().uptimeNanoseconds
            do {
                try connection.execute("COMMIT")
            } catch {
                // A serialization failure at COMMIT also undid the whole transaction.
                if !error.isConnectionLost, error.sqlstate == "40001" || error.sqlstate == "40P01", retries < maximumRetries {
                    if connection.inTransaction { try? connection.execute("ROLLBACK") }
                    retries += 1
                    count(retry: statistics)
                    connection.clearLastError()
                    pause(before: retries)
                    continue
                }
                fail(pending, error.isConnectionLost ? health.unavailableAfterLoss : error.store(health))
                return []
            }
            let commitElapsed = DispatchTime.now().uptimeNanoseconds &- commitStarted
            let count = pending.reduce(0) { $0 + $1.jobCount }
            statistics.value.withLock {
                $0.transactions += 1
                $0.writes += count
                $0.commitNanoseconds &+= commitElapsed
            }
            for unit in pending { unit.complete(nil) }
            return []
        }
        return []
    }

    private static func count(retry statistics: PGCounters) {
        statistics.value.withLock { $0.retriedTransactions += 1 }
    }

    private static func fail(_ units: [PGUnit], _ error: StoreError) {
        for unit in units { unit.complete(error) }
    }

    /// The jobs as units: runs of adjacent device registrations merged, and runs of adjacent
    /// message creations.
    private static func units(_ jobs: [PGJob]) -> [PGUnit] {
        var units: [PGUnit] = []
        var devices: [DeviceUpsertJob] = []
        var messages: [MessageInsertJob] = []
        func flush() {
            if !devices.isEmpty { units.append(DeviceUpsertGroup(devices)) }
            if !messages.isEmpty { units.append(MessageInsertGroup(messages)) }
            devices = []
            messages = []
        }
        for job in jobs {
            if let device = job as? DeviceUpsertJob {
                if !messages.isEmpty { flush() }
                devices.append(device)
            } else if let message = job as? MessageInsertJob {
                if !devices.isEmpty { flush() }
                messages.append(message)
            } else {
                flush()
                units.append(SingleJob(job: job))
            }
        }
        flush()
        return units
    }
}

/// What the writer runs in a transaction: one job, or a group of registrations or of message
/// creations written by one statement.
protocol PGUnit {
    var jobCount: Int { get }
    func run(on connection: PGConnection) throws(StoreError)
    func complete(_ error: StoreError?)
    /// The group's writes as units of one write each, to find the one that failed; nil for a
    /// unit of one write.
    func split() -> [PGUnit]?
}

/// A unit whose writes are one statement, atomic by itself, so that alone in the writer's batch
/// it needs no transaction block (`PGGroupCommit.run`).
protocol PGStatementUnit: PGUnit {
    /// Whether it may run again after its connection broke while it ran (whether it committed is
    /// unknown): an upsert of the same values may, an INSERT of new rows may not.
    var rerunsSafely: Bool { get }
    /// Runs it outside a transaction block: its statement commits as it ends. Failing later (a
    /// read after it), it throws `.unavailable`: its writes are not to be run again.
    func runAlone(on connection: PGConnection) throws(StoreError)
}

extension DeviceUpsertGroup: PGStatementUnit {
    var rerunsSafely: Bool { true }
    func runAlone(on connection: PGConnection) throws(StoreError) { try run(on: connection) }
    func split() -> [PGUnit]? { writes.count > 1 ? writes.map { DeviceUpsertGroup([$0]) } : nil }
}

extension MessageInsertGroup: PGStatementUnit {
    var rerunsSafely: Bool { false }
    func split() -> [PGUnit]? { jobs.count > 1 ? jobs.map { MessageInsertGroup([$0]) } : nil }
}

private struct SingleJob: PGUnit {
    let job: PGJob
    var jobCount: Int { 1 }
    func split() -> [PGUnit]? { nil }
    func run(on connection: PGConnection) throws(StoreError) { try job.run(on: connection) }
    func complete(_ error: StoreError?) { job.complete(error) }
}

/// What the writer committed, shared with the store.
final class PGCounters: Sendable {
    let value = Mutex(StoreStatistics(transactions: 0, writes: 0))
    /// Round trips on the writers' connections and on the readers' (`PGConnection.roundTrips`).
    let writerRoundTrips = PGRoundTrips()
    let readerRoundTrips = PGRoundTrips()
}

extension StoreError {
    var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }
}

extension PGHealth {
    /// The error for a batch whose connection broke while it ran: nothing of it was committed
    /// (or, if COMMIT itself was cut off, nothing was acknowledged).
    var unavailableAfterLoss: StoreError {
        .unavailable("the connection to the database was lost; the write was not acknowledged, retry it")
    }
}

extension PGError {
    /// The store's error for a failed statement: unreachable database, uniqueness, or other.
    func store(_ health: PGHealth? = nil) -> StoreError {
        if isConnectionLost {
            health?.down(message)
            return .unavailable("the database is unreachable (\(message))")
        }
        switch sqlstate {
        case "23505": return .conflict(message)
        case "53100": return .storageFull(description)
        case "XX001", "XX002": return .dataLoss(description)
        case "40001", "40P01", "53300", "57014": return .unavailable(description)
        case "22021", "22P02", "22003": return .invalidChange(message)
        default: return .internalError(description)
        }
    }
}

/// Runs libpq calls, converting their errors to `StoreError`.
@inline(__always) @discardableResult
func pg<T>(_ body: () throws(PGError) -> T) throws(StoreError) -> T {
    do { return try body() } catch { throw error.store() }
}
