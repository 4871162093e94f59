import Foundation
import PushwireStore
import PushwireSystem
import Synchronization

/// The networked engine: a PostgreSQL database reached with libpq. One writer connection runs
/// every write, group-committing concurrent ones (`PGGroupCommit`), except the writes of one
/// device (registrations, tags, badge, unregistration), which registration writers — one per
/// device, by a hash — group-commit side by side, and the delivery pipeline's bookkeeping
/// (`write(background: true)`), which a delivery writer group-commits beside them; a bounded
/// pool of reader connections serves reads. Each connection is owned by a thread of its own (`PGWorker`) and is
/// re-established with backoff when lost; meanwhile calls fail with `.unavailable` and `health`
/// is `.notServing`, and service resumes by itself when the database returns.
///
/// The schema is migrated on open under an advisory lock (`PostgresSchema`), so servers starting
/// together migrate once.
public final class PostgresStore: PushwireStore, MessageStore, @unchecked Sendable {
    // @unchecked: every stored property is immutable and Sendable except the workers, which are
    // only started here and joined in `close` (once: guarded by `isClosed`).

    /// The database's URL without its password, for messages.
    public let location: String
    /// The URL as given (with its password): what the workers connect with.
    let url: String
    let writerHealth = PGHealth()
    let readerHealth = PGHealth()
    private let writeQueue = PGJobQueue()
    /// The delivery pipeline's bookkeeping (`write(background: true)`), for the delivery writer;
    /// nil when there is none (then the writer runs it, after callers' writes: `PGJobQueue`).
    private let deliveryQueue: PGJobQueue?
    /// New registrations (`upsertDevice(_:completion:)`), one queue per registration writer.
    private let registrationQueues: [PGJobQueue]
    private let readQueue = PGJobQueue()
    private let workers: [PGWorker]
    let counters = PGCounters()
    /// Set once by `close`; read without a lock by `isServing` (asked on every Health/Check call).
    private let isClosed = Atomic<Bool>(false)
    /// This store object's name in the change feed's notifications (`PGChangeFeed`): its own
    /// are skipped by its listener.
    let origin: String
    /// The change feed's receiving side (`observeChanges`).
    let listener: PGListener

    /// How many reader connections a store opens by default.
    public static let defaultReaders = 4

    /// How many registration writers a store opens by default: connections that write only
    /// RegisterDevice's group upserts, committing in parallel with the writer (and with the
    /// other servers' registration writers), so that a group's COMMIT (its WAL flush) waits
    /// behind no other write. One: a commit costs PostgreSQL about the same CPU whatever its
    /// size, and a second writer only halved every group (docs/STORE.md; the measurements, by
    /// `Scripts/bench-ab/pg-register-cpu`, in docs/journal/2026-12-07-wal-frames-and-completions.md).
    public static let defaultRegistrationWriters = 1

    /// Whether a store opens a delivery writer by default: a connection of its own for the
    /// delivery pipeline's bookkeeping (claims, fan-out steps, leases), committing in parallel
    /// with the writer. On the one writer a stream of CreateMessage calls and their deliveries
    /// took turns: each creation batch waited for the previous batch's attempt records and
    /// outcomes to commit, and the other way round, so both paid two WAL flushes per turn.
    public static let defaultDeliveryWriter = true

    /// Connects to `url` (`postgresql://user[:password]@host[:port]/dbname[?sslmode=…]`),
    /// migrating the schema as needed, with `readers` reader connections (at least 1), one
    /// writer, `registrationWriters` writers of registrations (0: the writer writes them) and,
    /// with `deliveryWriter`, a writer of the delivery pipeline's bookkeeping (else the writer
    /// writes it).
    /// - Throws: `.cannotOpen` when the URL is not a PostgreSQL URL or the database cannot be
    ///   reached or migrated, `.schemaTooNew` when a newer binary migrated it.
    public init(url: String, readers: Int = PostgresStore.defaultReaders,
                registrationWriters: Int = PostgresStore.defaultRegistrationWriters,
                deliveryWriter: Bool = PostgresStore.defaultDeliveryWriter) throws(StoreError) {
        let location = PostgresStore.redacted(url)
        self.location = location
        self.url = url
        guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") else {
            throw .openFailure(location, "a database URL starts with postgresql:// (postgresql://user[:password]@host:port/dbname)")
        }
        let connection: PGConnection
        do {
            connection = try PGConnection(url: url, connectTimeout: PGWorker.connectTimeout)
        } catch {
            throw .openFailure(location, error.message)
        }
        try PostgresSchema.migrate(connection, location: location)
        // Listening before the store is handed out: every change committed from now on reaches
        // `observeChanges`.
        let origin = PGChangeFeed.newOrigin()
        self.origin = origin
        listener = try PGListener(url: url, origin: origin)
        var workers: [PGWorker] = []
        let (writerHealth, counters) = (self.writerHealth, self.counters)
        let registrationQueues = (0..<max(0, registrationWriters)).map { _ in PGJobQueue() }
        let deliveryQueue = deliveryWriter ? PGJobQueue() : nil
        let queues = [writeQueue, readQueue] + registrationQueues + (deliveryQueue.map { [$0] } ?? [])
        do throws(SystemError) {
            workers.append(try PGWorker(name: "pw-pg-writer", url: url, connection: connection, queue: writeQueue, batchLimit: 4096,
                                    health: writerHealth) { connection, jobs in
                connection.roundTrips = counters.writerRoundTrips
                return PGGroupCommit.run(jobs, on: connection, health: writerHealth, statistics: counters)
            })
            // Every write keyed by one device (registrations, grouped into one statement and its own
            // transaction when alone; tags, badge, unregistration), committing side by side. A
            // device's writes always go to the same one (`deviceQueue`), so they commit in the order
            // they came, as on the one writer, and the writers of one server never share a device's
            // row (the writer's fan-out bookkeeping still may: a deadlock is retried, PGGroupCommit).
            for (index, queue) in registrationQueues.enumerated() {
                workers.append(try PGWorker(name: "pw-pg-reg-\(index)", url: url, connection: nil, queue: queue,
                                        batchLimit: 4096, health: writerHealth) { connection, jobs in
                    connection.roundTrips = counters.writerRoundTrips
                    return PGGroupCommit.run(jobs, on: connection, health: writerHealth, statistics: counters)
                })
            }
            // The delivery pipeline's writes: steps of distinct messages, claims and leases. They
            // share no row with a creation (a step follows its message's commit) and meet the
            // writer only on a message being cancelled, which the row lock orders.
            if let deliveryQueue {
                workers.append(try PGWorker(name: "pw-pg-deliver", url: url, connection: nil, queue: deliveryQueue,
                                            batchLimit: 4096, health: writerHealth) { connection, jobs in
                    connection.roundTrips = counters.writerRoundTrips
                    return PGGroupCommit.run(jobs, on: connection, health: writerHealth, statistics: counters)
                })
            }
            for index in 0..<max(1, readers) {
                workers.append(try PGWorker(name: "pw-pg-read-\(index)", url: url, connection: nil, queue: readQueue, batchLimit: 1,
                                        health: readerHealth, idleCheck: 5) { connection, jobs in
                    connection.roundTrips = counters.readerRoundTrips
                    return PostgresStore.runReads(jobs, on: connection)
                })
            }
        } catch {
            // Out of threads: the ones started end once their queues close.
            for queue in queues { queue.close() }
            listener.close()
            for worker in workers { worker.join() }
            throw .openFailure(location, "cannot start the store's threads: \(error)")
        }
        self.registrationQueues = registrationQueues
        self.deliveryQueue = deliveryQueue
        self.workers = workers
    }

    deinit { close() }

    /// Reports the changes other servers commit, as `PGListener` receives them (see the
    /// protocol): notified by `pg_notify` inside each writing transaction (`PGChangeFeed`).
    public func observeChanges(_ observer: @escaping @Sendable (StoreChange) -> Void) {
        listener.observe(observer)
    }

    /// Whether writes are expected to succeed: false while the writer's connection is down.
    public var isServing: Bool { writerHealth.isReachable && !isClosed.load(ordering: .relaxed) }

    /// Why the store is not serving ("" when it is).
    public var notServingReason: String {
        if isClosed.load(ordering: .acquiring) { return "the store is closed" }
        return writerHealth.isReachable ? "" : "the database at \(location) is unreachable: \(writerHealth.reason)"
    }

    /// `.notServing` while the writer's connection is down (and once closed); never waits.
    public var health: StoreHealth { isServing ? .serving : .notServing(reason: notServingReason) }

    /// What the writer has committed so far, and the writes queued for it now.
    public var statistics: StoreStatistics {
        var statistics = counters.value.withLock { $0 }
        statistics.queuedWrites = registrationQueues.reduce(writeQueue.count + (deliveryQueue?.count ?? 0)) { $0 + $1.count }
        return statistics
    }

    /// Round trips made so far on the writer's connection (statements, preparations, BEGIN and
    /// COMMIT), and on the readers' connections: what the group commit and the batched
    /// statements save (`PostgresRoundTripTests`).
    var writerRoundTrips: Int { counters.writerRoundTrips.value.load(ordering: .relaxed) }
    var readerRoundTrips: Int { counters.readerRoundTrips.value.load(ordering: .relaxed) }

    /// Finishes queued writes and reads, then closes every connection; later calls fail with `.closed`.
    public func close() {
        // The first caller closes; the others return at once.
        if isClosed.exchange(true, ordering: .acquiringAndReleasing) { return }
        writeQueue.close()
        for queue in registrationQueues { queue.close() }
        deliveryQueue?.close()
        readQueue.close()
        listener.close()
        // A store released by a completion runs its deinit on a worker's thread: that worker
        // cannot wait for itself (the workers still finish their queues and stop).
        if listener.isCurrentThread || workers.contains(where: \.isCurrentThread) { return }
        for worker in workers { worker.join() }
    }

    // MARK: running work

    /// Queues a write (run in the writer's next transaction); `completion` gets its value after COMMIT.
    /// - Parameter background: nobody waits for it to answer a call (the delivery pipeline's
    ///   bookkeeping): it goes to the delivery writer, or without one to the writer after
    ///   callers' writes (`PGJobQueue`).
    func write<T: Sendable>(background: Bool = false, _ body: @escaping @Sendable (PGConnection) throws(StoreError) -> T,
                            completion: @escaping @Sendable (Result<T, StoreError>) -> Void) {
        let job = ClosureJob(body, completion: completion)
        let pushed = background ? (deliveryQueue?.push(job) ?? writeQueue.push(job, background: true)) : writeQueue.push(job)
        if !pushed { job.complete(.closed) }
    }

    /// Runs a write in the writer's next transaction and returns its value once committed
    /// (`background`: as for the completion variant).
    func write<T: Sendable>(background: Bool = false,
                            _ body: @escaping @Sendable (PGConnection) throws(StoreError) -> T) async throws(StoreError) -> T {
        let result: Result<T, StoreError> = await withCheckedContinuation { continuation in
            write(background: background, body) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Runs a read on a reader connection; with `snapshot`, in one REPEATABLE READ transaction
    /// so that its statements see one committed state.
    func read<T: Sendable>(snapshot: Bool = false,
                           _ body: @escaping @Sendable (PGConnection) throws(StoreError) -> T) async throws(StoreError) -> T {
        let result: Result<T, StoreError> = await withCheckedContinuation { continuation in
            let job = ClosureJob<T>({ connection throws(StoreError) in
                guard snapshot else { return try body(connection) }
                try pg { () throws(PGError) in try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") }
                let value = try body(connection)
                try pg { () throws(PGError) in try connection.execute("COMMIT") }
                return value
            }, completion: { continuation.resume(returning: $0) })
            submit(job, to: readQueue)
        }
        return try result.get()
    }

    /// Queues a job that runs outside the store's helpers (the merged message creations).
    func submitWrite(_ job: PGJob) { submit(job, to: writeQueue) }

    /// Queues a registration for the registration writer of its device (the writer when there
    /// are none).
    func submitRegistration(_ job: DeviceUpsertJob) {
        submit(job, to: deviceQueue(applicationID: job.device.applicationID, hwid: job.device.hwid))
    }

    /// Runs a write of one device's rows (registration with tags, tags, badge, unregistration)
    /// on that device's registration writer, the one its registrations go to: so one device's
    /// writes commit in the order they were queued, and two writers never wait for one
    /// device's row lock inside one server.
    func writeDevice<T: Sendable>(applicationID: Int64, hwid: String,
                                  _ body: @escaping @Sendable (PGConnection) throws(StoreError) -> T) async throws(StoreError) -> T {
        let queue = deviceQueue(applicationID: applicationID, hwid: hwid)
        let result: Result<T, StoreError> = await withCheckedContinuation { continuation in
            submit(ClosureJob(body, completion: { continuation.resume(returning: $0) }), to: queue)
        }
        return try result.get()
    }

    /// The queue of the writer that writes the device's rows: a registration writer chosen by a
    /// hash of application and hwid (the writer's when there are none). `Hasher` is seeded per
    /// process, which is enough: the order that matters is that of one server's queues.
    private func deviceQueue(applicationID: Int64, hwid: String) -> PGJobQueue {
        guard !registrationQueues.isEmpty else { return writeQueue }
        var hasher = Hasher()
        hasher.combine(applicationID)
        hasher.combine(hwid)
        return registrationQueues[Int(UInt(bitPattern: hasher.finalize()) % UInt(registrationQueues.count))]
    }

    private func submit(_ job: PGJob, to queue: PGJobQueue) {
        if !queue.push(job) { job.complete(.closed) }
    }

    /// The reader's handler: one job at a time, a failed snapshot rolled back; a read that failed
    /// because the connection was lost is handed back to be run again on a new one.
    private static func runReads(_ jobs: [PGJob], on connection: PGConnection) -> [PGJob] {
        var retry: [PGJob] = []
        for job in jobs {
            do throws(StoreError) {
                try job.run(on: connection)
                job.complete(nil)
            } catch {
                if connection.isBroken, error.isUnavailable {
                    retry.append(job)
                    continue
                }
                if connection.inTransaction { try? connection.execute("ROLLBACK") }
                job.complete(error)
            }
        }
        return retry
    }

    /// `url` without the password, for messages and logs.
    public static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return url }
        let userInfo = authority[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + String(url[at...])
    }
}
