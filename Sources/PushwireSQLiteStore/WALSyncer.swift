import Foundation
import PushwireStore
import PushwireSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Makes committed transactions durable on a thread of its own, so that the writer runs the next
/// batch while this one's fsync is in flight (pipelined group commit).
///
/// The store runs SQLite with `synchronous=NORMAL`: a COMMIT appends the transaction's frames to
/// the write-ahead log and returns without an fsync. The writer then hands the batch's completions
/// here; this thread calls `fdatasync` on the `-wal` file and only then has them run (by a
/// `CompletionRunner`, so that answering the callers overlaps the next fsync), so a caller is
/// still acknowledged only once its transaction is on disk, exactly as with `synchronous=FULL`.
/// One fdatasync covers every commit handed over before it started: the WAL is appended in
/// commit order and SQLite's recovery keeps a prefix of it, so a durable commit implies that
/// every earlier one is durable too. (A `kill -9` loses nothing even before the fsync: the
/// frames are in the page cache. The fsync is for power loss and kernel crashes.)
///
/// SQLite still syncs by itself where ordering demands it: a checkpoint fsyncs the WAL before
/// copying pages into the database file and the database after.
///
/// If an fdatasync fails, the kernel may have dropped the dirty pages, so no later sync can be
/// trusted either: that batch and every later one fail with `SQLITE_IOERR_FSYNC`.
final class WALSyncer: Sendable {
    /// A committed batch waiting for its fsync: what to run once it is durable (or not).
    typealias Completions = [@Sendable (StoreError?) -> Void]

    private struct State {
        var pending: [Completions] = []
        /// When the fdatasync in flight started (monotonic nanoseconds); nil between syncs.
        var syncStartedAt: UInt64?
        /// How long an fdatasync takes.
        var syncDuration = SmoothedDuration()
        var closed = false
        /// Set by the first failed fdatasync, and then final.
        var failure: StoreError?
    }

    private let state = Mutex(State())
    private let walPath: String
    /// The WAL's descriptor: used and closed by the syncer's thread only.
    private let descriptor: Int32
    private let worker = WorkerThread(name: "pw-syncer")
    private let completions: CompletionRunner
    /// Called (on this thread) each time a sync ends: the writer commits when nothing is syncing.
    private let becameIdle: @Sendable () -> Void
    /// `fdatasync`, or a stand-in that fails, for tests of the failure path.
    private let flush: @Sendable (Int32) -> Int32

    /// Opens the WAL of the database at `databasePath` (SQLite creates it when the connection in
    /// WAL mode first reads) and makes its directory entry durable once.
    init(databasePath: String, flush: @escaping @Sendable (Int32) -> Int32 = { fdatasync($0) },
         becameIdle: @escaping @Sendable () -> Void) throws(StoreError) {
        let walPath = databasePath + "-wal"
        let descriptor = open(walPath, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .cannotOpen(location: walPath, reason: "cannot open the write-ahead log (\(String(cString: strerror(errno))))")
        }
        // SQLite syncs the directory after creating a journal only with synchronous=FULL.
        let directory = open((databasePath as NSString).deletingLastPathComponent, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            Glibc.close(directory)
        }
        do {
            completions = try CompletionRunner()
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        self.walPath = walPath
        self.descriptor = descriptor
        self.becameIdle = becameIdle
        self.flush = flush
        do {
            try worker.start { [self] in self.run() }
        } catch {
            completions.close()
            Glibc.close(descriptor)
            throw .cannotOpen(location: walPath, reason: "cannot start the syncer's thread: \(error)")
        }
    }

    /// Where the syncer is, for the writer's choice of when to commit.
    enum Progress: Equatable {
        /// Nothing to sync: a commit now is synced at once.
        case idle
        /// An fsync is in flight, expected to end at `expectedEnd` (monotonic nanoseconds); nothing
        /// committed waits for the next one.
        case syncing(expectedEnd: UInt64)
        /// A committed batch already waits for the next fsync.
        case queued
    }

    /// Where the syncer is now.
    var progress: Progress {
        state.withLock { state in
            if !state.pending.isEmpty { return .queued }
            guard let startedAt = state.syncStartedAt else { return .idle }
            return .syncing(expectedEnd: startedAt + state.syncDuration.nanoseconds)
        }
    }

    /// Whether `failure` is set: Health/Check asks on every call, from both event loops, and
    /// looks at this rather than taking the lock the syncer's thread uses.
    private let hasFailed = Atomic<Bool>(false)

    /// The failure that stopped durability, if any: the writer refuses new batches after it.
    var failure: StoreError? {
        guard hasFailed.load(ordering: .acquiring) else { return nil }
        return state.withLock { $0.failure }
    }

    /// Hands over the completions of a batch the writer just committed.
    func submit(_ completions: Completions) {
        let failure = state.withLock { state -> StoreError? in
            if let failure = state.failure { return failure }
            state.pending.append(completions)
            return nil
        }
        if let failure {
            for complete in completions { complete(failure) }
        } else {
            worker.wake()
        }
    }

    /// Syncs and completes what was submitted, then stops the thread and closes the WAL descriptor.
    /// The writer calls it after its last commit.
    func close() {
        state.withLock { $0.closed = true }
        worker.stopAndWait()
    }

    private func run() {
        while true {
            let startedAt = DispatchTime.now().uptimeNanoseconds
            let batches = state.withLock { state -> [Completions]? in
                if state.pending.isEmpty {
                    return state.closed ? nil : []
                }
                state.syncStartedAt = startedAt
                defer { state.pending.removeAll(keepingCapacity: true) }
                return state.pending
            }
            guard let batches else { break }
            if batches.isEmpty {
                worker.sleep()
                continue
            }
            let outcome = sync()
            let took = DispatchTime.now().uptimeNanoseconds - startedAt
            state.withLock { state in
                state.syncStartedAt = nil
                state.syncDuration.add(took)
            }
            completions.complete(batches, outcome: outcome)
            becameIdle()
        }
        completions.close()
        Glibc.close(descriptor)
    }

    /// One fdatasync of the WAL; nil when it succeeded.
    private func sync() -> StoreError? {
        if let failure { return failure }
        if flush(descriptor) == 0 { return nil }
        // Final (see the type's comment): every later write fails the same way until a restart.
        let reason = "fdatasync of \(walPath) failed (\(String(cString: strerror(errno)))); restart pushwired once the disk is fixed"
        let error: StoreError = errno == ENOSPC || errno == EDQUOT ? .storageFull(reason) : .unavailable(reason)
        state.withLock { $0.failure = error }
        hasFailed.store(true, ordering: .releasing)
        return error
    }
}
