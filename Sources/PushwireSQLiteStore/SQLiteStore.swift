import CSQLite
import Foundation
import PushwireStore
import Synchronization

/// The embedded engine: `pushwire.sqlite3` in a data directory, in WAL mode, one group-committing
/// writer thread with its WAL syncer, and a pool of reader connections.
public final class SQLiteStore: PushwireStore {
    /// The database file's name inside the data directory.
    public static let fileName = "pushwire.sqlite3"

    /// The path of the database file.
    public let path: String
    let writer: GroupCommitWriter
    let readers: ReaderPool
    /// Held while the store is open: no other process opens this data directory meanwhile.
    private let lock: DataDirectoryLock
    /// The outbox's message leases (in memory: this process is the data directory's only one).
    let leases = LeaseTable()
    /// Fan-out batches (in memory, for the contract: this engine's pipeline fans out whole).
    let batches = BatchTable()
    /// The messages whose rows this process flagged as counting one platform (`RowPlatforms`).
    let rowPlatforms = RowPlatforms()

    /// Opens (creating and migrating as needed) the store in `dataDirectory`.
    /// - Throws: `.cannotOpen` when the directory cannot be created or written or another process
    ///   uses it (`DataDirectoryLock`), `.corrupt` when the file is not a Pushwire database,
    ///   `.schemaTooNew` when a newer binary wrote it.
    public convenience init(dataDirectory: String) throws(StoreError) {
        try self.init(dataDirectory: dataDirectory, flushWAL: { fdatasync($0) })
    }

    /// Opens the store with `flushWAL` standing in for `fdatasync` of the write-ahead log: for
    /// tests of what callers see when the disk fails.
    init(dataDirectory: String, flushWAL: @escaping @Sendable (Int32) -> Int32) throws(StoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: dataDirectory, isDirectory: &isDirectory) {
            if !isDirectory.boolValue {
                throw .cannotOpen(location: dataDirectory, reason: "it exists and is not a directory")
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
            } catch {
                throw .cannotOpen(location: dataDirectory, reason: "cannot create it (\(error.localizedDescription))")
            }
        }
        // Before the database is opened: a second process must not touch it (not even recover
        // its log).
        let lock = try DataDirectoryLock(dataDirectory: dataDirectory)
        self.lock = lock
        let path = (dataDirectory as NSString).appendingPathComponent(SQLiteStore.fileName)
        self.path = path
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path)
        } catch {
            throw .cannotOpen(location: path, reason: "\(error.message) (sqlite code \(error.code))")
        }
        do {
            // journal_mode returns a row; a file that is not a database fails here first.
            let mode = try connection.statement("PRAGMA journal_mode=WAL")
            guard try mode.step(), mode.text(0).lowercased() == "wal" else {
                throw StoreError.cannotOpen(location: path, reason: "cannot switch to WAL mode")
            }
            mode.reset()
            // NORMAL: a COMMIT writes the WAL without an fsync; the writer's WALSyncer fsyncs it
            // before any write of the commit is acknowledged (the same promise as FULL, with the
            // fsync off the writer's thread).
            try connection.execute("PRAGMA synchronous=NORMAL")
        } catch let error as SQLiteError {
            throw SQLiteStore.classify(error, path: path)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .cannotOpen(location: path, reason: "\(error)")
        }
        try Schema.migrate(connection)
        self.writer = try GroupCommitWriter(connection: connection, flushWAL: flushWAL)
        self.readers = ReaderPool(path: path)
    }

    deinit { writer.close() }

    /// Maps an SQLite failure during open onto the startup error a person can act on.
    static func classify(_ error: SQLiteError, path: String) -> StoreError {
        switch error.primaryCode {
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            return .corrupt(location: path, reason: error.message)
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_IOERR, SQLITE_FULL:
            return .cannotOpen(location: path, reason: "\(error.message) (sqlite code \(error.code))")
        default:
            return error.store
        }
    }

    /// Never reports anything: only this process can write its data directory (the
    /// directory's lock), so every change is one its own caller made and already knows.
    public func observeChanges(_ observer: @escaping @Sendable (StoreChange) -> Void) {}

    /// Serving until an fsync of the write-ahead log fails (final until a restart) or the store
    /// is closed.
    public var health: StoreHealth { writer.health }

    /// What the writer has committed so far.
    public var statistics: StoreStatistics { writer.statistics }

    /// Finishes queued writes and stops the writer; later writes fail with `.closed`. Then the
    /// data directory's lock is given back.
    public func close() {
        writer.close()
        lock.release()
    }

    /// Runs `body` on a reader connection; with `snapshot`, inside one read transaction so that
    /// several statements see the same committed state.
    func read<T>(snapshot: Bool = false, _ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        let connection = try readers.take()
        defer { readers.give(connection) }
        if snapshot {
            do { try connection.statement("BEGIN").run() } catch { throw error.store }
        }
        defer { if snapshot { _ = try? connection.statement("COMMIT").run() } }
        return try body(connection)
    }
}

/// Reader connections, opened on demand and reused; at most as many as threads reading at once.
final class ReaderPool: Sendable {
    private let path: String
    private let idle = Mutex<[SQLiteConnection]>([])

    init(path: String) { self.path = path }

    func take() throws(StoreError) -> SQLiteConnection {
        if let connection = idle.withLock({ $0.popLast() }) { return connection }
        do {
            let connection = try SQLiteConnection(path: path, create: false)
            // Readers are many (one per thread reading at once): keep their page caches small; the
            // OS page cache holds the hot pages for all of them.
            try connection.execute("PRAGMA query_only=1; PRAGMA cache_size=-1024")
            return connection
        } catch {
            throw error.store
        }
    }

    func give(_ connection: SQLiteConnection) {
        idle.withLock { $0.append(connection) }
    }
}

extension SQLiteError {
    /// The engine-neutral error callers see: corruption is data loss, a full disk is storage
    /// full, a busy or failing disk is unavailable (writes cannot succeed for now), a broken
    /// uniqueness rule is a conflict; SQLite's code and message stay in the text.
    var store: StoreError {
        switch primaryCode {
        case SQLITE_CONSTRAINT: .conflict(message)
        case SQLITE_CORRUPT, SQLITE_NOTADB: .dataLoss("the database file is damaged: \(description)")
        case SQLITE_FULL: .storageFull("the disk holding the database is full: \(description)")
        case SQLITE_IOERR: .unavailable("the disk failed a read or write: \(description)")
        case SQLITE_BUSY, SQLITE_LOCKED: .unavailable("the database is locked: \(description)")
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM: .unavailable("the database file cannot be written: \(description)")
        default: .internalError(description)
        }
    }
}

/// Runs SQLite calls, converting their errors to `StoreError`.
@inline(__always)
func sql<T>(_ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
    do { return try body() } catch { throw error.store }
}
