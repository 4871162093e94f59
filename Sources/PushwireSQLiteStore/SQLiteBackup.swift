import CSQLite
import PushwireStore
#if canImport(Glibc)
import Glibc
#endif

/// Online backups of the SQLite store and their restore (`pushwired backup` / `pushwired restore`).
///
/// A backup copies the database through SQLite's online backup API on a connection of its own, in
/// one step: the copy is one read transaction, so it is the database as of one commit, while the
/// server goes on writing (in WAL mode a reader does not hold up the writer). The copy is written
/// beside the target, synced, checked and renamed into place, so a crash never leaves a half
/// backup under the target's name.
public enum SQLiteBackup {
    /// Why a backup or a restore did not happen.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, for a person.
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// What a checked database file holds.
    public struct Summary: Sendable, Equatable {
        /// Its schema version (`PRAGMA user_version`).
        public var schemaVersion: Int
        /// Its size in bytes.
        public var bytes: Int64
        /// How many applications it holds.
        public var applications: Int64
        /// How many devices it holds.
        public var devices: Int64
        /// How many messages it holds.
        public var messages: Int64
    }

    /// Copies the store in `dataDirectory` to `target`, consistently, while a server may be using it.
    /// - Parameter replace: overwrite an existing `target`.
    /// - Returns: what the copy holds (it is checked like a restore checks it).
    /// - Throws: `Failure` when there is no store, the target exists (without `replace`), or a
    ///   read, write or check fails; nothing is left at `target` then.
    public static func backup(dataDirectory: String, to target: String, replace: Bool = false) throws(Failure) -> Summary {
        let source = dataDirectory + "/" + SQLiteStore.fileName
        guard access(source, F_OK) == 0 else { throw Failure("no database in \(dataDirectory) (\(source) does not exist)") }
        if !replace, access(target, F_OK) == 0 { throw Failure("\(target) exists; pass --force to replace it") }
        let partial = target + ".partial"
        unlink(partial)
        do {
            try copyOnline(source, to: partial)
        } catch {
            unlink(partial)
            throw Failure("cannot back up \(source): \(error)")
        }
        let summary: Summary
        do {
            summary = try check(file: partial)
            try syncFile(partial)
        } catch {
            unlink(partial)
            throw error
        }
        guard rename(partial, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw Failure("cannot rename \(partial) to \(target): \(reason)")
        }
        syncDirectory(of: target)
        return summary
    }

    /// The online copy itself; both connections are closed when it returns.
    private static func copyOnline(_ source: String, to partial: String) throws(SQLiteError) {
        // Read-write without create: a read-only connection to a WAL database needs the -shm
        // file to exist and cannot recover a WAL left by a crashed server. Nothing is written.
        let from = try SQLiteConnection(path: source, create: false)
        let to = try SQLiteConnection(path: partial)
        guard let backup = sqlite3_backup_init(to.rawHandle, "main", from.rawHandle, "main") else {
            throw to.error(sqlite3_errcode(to.rawHandle), "backup init")
        }
        // -1: every page in one step, one read transaction, so the copy is one commit's state
        // (steps of a few pages would restart whenever the server commits in between).
        var rc = sqlite3_backup_step(backup, -1)
        while rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
            usleep(10_000)
            rc = sqlite3_backup_step(backup, -1)
        }
        let finish = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else { throw SQLiteError(code: rc, message: String(cString: sqlite3_errstr(rc)), context: "backup step") }
        guard finish == SQLITE_OK else { throw to.error(finish, "backup finish") }
        // A standalone file: no WAL beside it to carry along.
        try to.execute("PRAGMA journal_mode=DELETE")
    }

    /// Checks that `file` is a whole Pushwire database this binary can open: SQLite's integrity
    /// check passes and its schema version is one this binary knows.
    public static func check(file: String) throws(Failure) -> Summary {
        guard access(file, R_OK) == 0 else { throw Failure("cannot read \(file): \(String(cString: strerror(errno)))") }
        do {
            let connection = try SQLiteConnection(path: file, readOnly: true, create: false)
            let integrity = try connection.statement("PRAGMA integrity_check")
            var problems: [String] = []
            while try integrity.step() { problems.append(integrity.text(0)) }
            integrity.reset()
            guard problems == ["ok"] else {
                throw Failure("\(file) fails SQLite's integrity check: \(problems.prefix(3).joined(separator: "; "))")
            }
            let version = Int(try connection.scalarInt("PRAGMA user_version") ?? 0)
            guard version >= 1 else { throw Failure("\(file) is not a Pushwire database (schema version 0)") }
            guard version <= Schema.currentVersion else {
                throw Failure("\(file) has schema version \(version); this pushwired knows up to \(Schema.currentVersion): restore it with a newer one")
            }
            let pages = try connection.scalarInt("PRAGMA page_count") ?? 0
            let pageSize = try connection.scalarInt("PRAGMA page_size") ?? 0
            return Summary(schemaVersion: version, bytes: pages * pageSize,
                           applications: try connection.scalarInt("SELECT count(*) FROM applications") ?? 0,
                           devices: try connection.scalarInt("SELECT count(*) FROM devices") ?? 0,
                           messages: try connection.scalarInt("SELECT count(*) FROM messages") ?? 0)
        } catch let failure as Failure {
            throw failure
        } catch let error as SQLiteError where error.primaryCode == SQLITE_NOTADB || error.primaryCode == SQLITE_CORRUPT {
            throw Failure("\(file) is not a Pushwire database: \(error.message)")
        } catch {
            throw Failure("cannot check \(file): \(error)")
        }
    }

    /// Installs the backup `file` as the store of `dataDirectory` (created when missing), after
    /// `check`: copied beside it, synced, and renamed over any database there (whose WAL and
    /// shared-memory files are removed first, so none of the old database is replayed into the
    /// new one). Holds the directory's lock (the one every store takes, `DataDirectoryLock`)
    /// while it does: a directory a server uses is refused, and no server can open it meanwhile.
    /// - Parameter replace: the directory may hold a database already (it is replaced).
    public static func restore(from file: String, dataDirectory: String, replace: Bool) throws(Failure) -> Summary {
        let summary = try check(file: file)
        if mkdir(dataDirectory, 0o700) != 0 && errno != EEXIST {
            throw Failure("cannot create \(dataDirectory): \(String(cString: strerror(errno)))")
        }
        let lock: DataDirectoryLock
        do {
            lock = try DataDirectoryLock(dataDirectory: dataDirectory)
        } catch {
            throw Failure("cannot restore into \(dataDirectory): \(Self.reason(error))")
        }
        defer { lock.release() }
        let target = dataDirectory + "/" + SQLiteStore.fileName
        if !replace, access(target, F_OK) == 0 {
            throw Failure("\(dataDirectory) already holds a database; pass --force to replace it")
        }
        let partial = target + ".restoring"
        unlink(partial)
        do {
            try copyFile(file, to: partial)
            try syncFile(partial)
        } catch {
            unlink(partial)
            throw error
        }
        for suffix in ["-wal", "-shm"] { unlink(target + suffix) }
        guard rename(partial, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw Failure("cannot rename \(partial) to \(target): \(reason)")
        }
        syncDirectory(of: target)
        return summary
    }

    /// The lock's reason without the store's "cannot open the store at …" framing.
    private static func reason(_ error: StoreError) -> String {
        if case .cannotOpen(_, let reason) = error { return reason }
        return error.description
    }

    private static func copyFile(_ source: String, to target: String) throws(Failure) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Failure("cannot open \(source): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw Failure("cannot create \(target): \(String(cString: strerror(errno)))") }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw Failure("cannot read \(source): \(String(cString: strerror(errno)))") }
            if count == 0 { return }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return 0 }
                    return write(output, base + offset, count - offset)
                }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw Failure("cannot write \(target): \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
    }

    private static func syncFile(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw Failure("cannot sync \(path): \(reason)")
        }
        close(fd)
    }

    /// Makes a rename durable. Best effort: the file itself is already synced.
    private static func syncDirectory(of path: String) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}
