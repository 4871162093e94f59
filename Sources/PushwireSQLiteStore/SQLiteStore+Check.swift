import CSQLite
import Foundation
import PushwireStore

extension SQLiteStore {
    /// What `check(dataDirectory:)` found.
    public struct CheckReport: Sendable, Equatable {
        /// The database file checked.
        public var path: String
        /// SQLite's `integrity_check` findings; empty when the database is whole.
        public var problems: [String]
        /// The database's size in pages.
        public var pages: Int64

        /// Whether nothing was found.
        public var isWhole: Bool { problems.isEmpty }
    }

    /// Checks the integrity of the database in `dataDirectory` (`pushwired --check`): every page,
    /// index and constraint, with SQLite's `integrity_check`, after recovering the log as a start
    /// would. Creates nothing, and holds the directory's lock while it runs (a running pushwired
    /// keeps it out).
    /// - Throws: `.cannotOpen` when there is no database there or another process uses it,
    ///   `.corrupt` when the file is not a database at all.
    public static func check(dataDirectory: String) throws(StoreError) -> CheckReport {
        let path = (dataDirectory as NSString).appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: path) else {
            throw .cannotOpen(location: dataDirectory, reason: "no \(fileName) there: not a Pushwire data directory")
        }
        let lock = try DataDirectoryLock(dataDirectory: dataDirectory)
        defer { lock.release() }
        do {
            let connection = try SQLiteConnection(path: path, create: false)
            let pages = try connection.statement("PRAGMA page_count")
            let count = try pages.step() ? pages.int(0) : 0
            pages.reset()
            let check = try connection.statement("PRAGMA integrity_check")
            defer { check.reset() }
            var problems: [String] = []
            while try check.step() {
                let line = check.text(0)
                if line != "ok" { problems.append(line) }
            }
            return CheckReport(path: path, problems: problems, pages: count)
        } catch {
            // A file too damaged to check at all is the worst finding, not a failure to check.
            if error.primaryCode == SQLITE_CORRUPT || error.primaryCode == SQLITE_NOTADB {
                return CheckReport(path: path, problems: [error.description], pages: 0)
            }
            throw classify(error, path: path)
        }
    }
}
