import CSQLite
import PushwireStore

/// A failed SQLite call: the result code, SQLite's message and what we were doing.
struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The (extended) SQLite result code, e.g. 26 for `SQLITE_NOTADB`.
    var code: Int32
    /// SQLite's own message for the failure.
    var message: String
    /// What the store was doing, e.g. `prepare "INSERT INTO devices…"`.
    var context: String

    /// Creates an error.
    init(code: Int32, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
    }

    /// The primary result code (the low byte of an extended code).
    var primaryCode: Int32 { code & 0xFF }

    /// `sqlite error 26 (file is not a database) during open`.
    var description: String { "sqlite error \(code) (\(message)) during \(context)" }
}

/// One SQLite connection with its cache of prepared statements.
///
/// `@unchecked Sendable` because it moves between threads but is never shared: the writer thread
/// owns its connection alone, and a reader connection is used only by the thread that took it out
/// of `ReaderPool` (under the pool's lock) until it puts it back.
final class SQLiteConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    private var statements: [String: Statement] = [:]
    /// Statements whose SQL is a literal, keyed by the literal's address: found without hashing
    /// the SQL text (the writer runs several per row; hashing a 400-byte upsert showed in profiles).
    private var literalStatements: [UnsafeRawPointer: Statement] = [:]
    /// Statements whose SQL is built at run time in a few variants (a multi-row upsert per group
    /// size), keyed by who built them and the variant: found without building or hashing the SQL.
    private var builtStatements: [StatementKey: Statement] = [:]
    /// The path of the database file, for error messages.
    let path: String

    /// Opens (creating when `create`) the database at `path`.
    init(path: String, readOnly: Bool = false, create: Bool = true) throws(SQLiteError) {
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message, context: "open \(path)")
        }
        sqlite3_extended_result_codes(db, 1)
        // A busy reader (a checkpoint, another process) is waited for rather than failed at once.
        sqlite3_busy_timeout(db, 5_000)
        self.handle = db
        self.path = path
        if !readOnly {
            // Statement journals in memory: a multi-row upsert (see `MergeableWrite`) needs one
            // to undo itself alone, and past SQLite's 64 KiB spill threshold it otherwise creates,
            // unlinks and writes a temporary file in /var/tmp per statement (strace showed one per
            // transaction). What it holds is bounded by the pages one statement changes.
            try execute("PRAGMA temp_store=MEMORY")
        }
    }

    deinit {
        statements.removeAll()  // finalize every statement before closing
        literalStatements.removeAll()
        builtStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// The sqlite3 handle, for the few calls that take one directly (the WAL hook, checkpoints).
    var rawHandle: OpaquePointer { handle }

    /// Whether no transaction is open. SQLite rolls the whole transaction back by itself on some
    /// errors (a full disk, an I/O error, out of memory), not only the failed statement.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The error that made SQLite roll back the writer's open transaction, noted by the job that
    /// met it (the writer's connection only, used by its one thread).
    var transactionAbort: StoreError?

    func error(_ rc: Int32, _ context: String) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), context: context)
    }

    /// Runs one or more statements that return no rows we need (pragmas, DDL, BEGIN/COMMIT).
    func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: rc, message: message, context: "execute \"\(sql.prefix(60))\"")
        }
    }

    /// The cached prepared statement for `sql`, reset and with its bindings cleared.
    func statement(_ sql: String) throws(SQLiteError) -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard rc == SQLITE_OK, let raw else {
            throw error(rc, "prepare \"\(sql.prefix(60))\"")
        }
        let statement = Statement(raw: raw, connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// The cached prepared statement for the literal `sql`, reset and with its bindings cleared:
    /// the same as `statement(_: String)`, found by the literal's address.
    func statement(_ sql: StaticString) throws(SQLiteError) -> Statement {
        guard sql.hasPointerRepresentation else { return try statement(sql.description) }
        let key = UnsafeRawPointer(sql.utf8Start)
        if let cached = literalStatements[key] {
            cached.reset()
            return cached
        }
        let statement = try statement(sql.description)
        literalStatements[key] = statement
        return statement
    }

    /// The cached prepared statement for `key`, reset and with its bindings cleared; `sql` builds
    /// its text the first time only.
    func statement(_ key: StatementKey, sql: () -> String) throws(SQLiteError) -> Statement {
        if let cached = builtStatements[key] {
            cached.reset()
            return cached
        }
        let statement = try statement(sql())
        builtStatements[key] = statement
        return statement
    }

    /// The first column of the first row of `sql` as an integer (pragmas such as `user_version`).
    func scalarInt(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try statement(sql)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.int(0)
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How many rows the last INSERT/UPDATE/DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }
}

/// A prepared statement, owned and cached by its connection.
final class Statement {
    private let raw: OpaquePointer
    private unowned let connection: SQLiteConnection
    private let sql: String

    fileprivate init(raw: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.raw = raw
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(raw) }

    /// Makes the statement ready to run again with new bindings.
    func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes, so Swift's buffers need not outlive the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds values to `?1`, `?2`, … in order.
    @discardableResult
    func bind(_ values: SQLValue...) throws(SQLiteError) -> Statement {
        try bind(values)
    }

    /// Binds values to `?1`, `?2`, … in order.
    @discardableResult
    func bind(_ values: [SQLValue]) throws(SQLiteError) -> Statement {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(raw, index)
            case .int(let v): rc = sqlite3_bind_int64(raw, index, v)
            case .text(var v):
                // withUTF8 lends the string's own bytes (passing the String converts it to a new C string).
                rc = v.withUTF8 { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_text(raw, index, "", 0, Statement.transient) }
                    return sqlite3_bind_text(raw, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                                             Statement.transient)
                }
            case .blob(let v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob(raw, index, $0.baseAddress, Int32($0.count), Statement.transient) }
            }
            if rc != SQLITE_OK { throw connection.error(rc, "bind ?\(index) of \"\(sql.prefix(60))\"") }
        }
        return self
    }

    /// Binds an integer to `?index` (1-based): for the hottest statements, without the array
    /// and enum of `bind(_:)`.
    func bind(_ index: Int32, _ value: Int64) throws(SQLiteError) {
        let rc = sqlite3_bind_int64(raw, index, value)
        if rc != SQLITE_OK { throw connection.error(rc, "bind ?\(index) of \"\(sql.prefix(60))\"") }
    }

    /// Binds text to `?index` (1-based); SQLite copies it.
    func bind(_ index: Int32, _ value: String) throws(SQLiteError) {
        var value = value
        // The length given, so SQLite does not scan for the terminator; UTF-8 is contiguous
        // after `withUTF8` (native strings already are: no copy).
        let rc = value.withUTF8 { bytes -> Int32 in
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_text(raw, index, "", 0, Statement.transient) }
            return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(raw, index, $0, Int32(bytes.count), Statement.transient)
            }
        }
        if rc != SQLITE_OK { throw connection.error(rc, "bind ?\(index) of \"\(sql.prefix(60))\"") }
    }

    /// Binds text to `?index` (1-based) without a copy: SQLite reads `bytes` when the statement
    /// steps, so they must stay valid until `run`/`step` returned (e.g. one buffer holding a
    /// whole multi-row statement's text, alive across the call). Saves a malloc and a copy per
    /// value against `bind(_:_:)`.
    func bindUnowned(_ index: Int32, _ bytes: UnsafeRawBufferPointer) throws(SQLiteError) {
        let rc: Int32
        if let start = bytes.baseAddress, !bytes.isEmpty {
            rc = sqlite3_bind_text(raw, index, start.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil /* SQLITE_STATIC */)
        } else {
            rc = sqlite3_bind_text(raw, index, "", 0, Statement.transient)
        }
        if rc != SQLITE_OK { throw connection.error(rc, "bind ?\(index) of \"\(sql.prefix(60))\"") }
    }

    /// Advances to the next row: true when a row is available, false when done.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(raw)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(rc, "step \"\(sql.prefix(60))\"")
            sqlite3_reset(raw)
            throw error
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws(SQLiteError) {
        defer { sqlite3_reset(raw) }
        while try step() {}
    }

    /// Column `i` of the current row as an integer (0 for NULL).
    func int(_ i: Int32) -> Int64 { sqlite3_column_int64(raw, i) }

    /// Column `i` of the current row as text ("" for NULL).
    func text(_ i: Int32) -> String {
        guard let pointer = sqlite3_column_text(raw, i) else { return "" }
        let count = Int(sqlite3_column_bytes(raw, i))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `i` of the current row as bytes (empty for NULL).
    func blob(_ i: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(raw, i))
        guard count > 0, let pointer = sqlite3_column_blob(raw, i) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Whether column `i` of the current row is NULL.
    func isNull(_ i: Int32) -> Bool { sqlite3_column_type(raw, i) == SQLITE_NULL }
}

/// Names a statement built at run time (see `SQLiteConnection.statement(_:sql:)`).
struct StatementKey: Hashable {
    /// Who builds it, e.g. `ObjectIdentifier(DeviceUpsert.self)`.
    var kind: ObjectIdentifier
    /// Which of its variants, e.g. the number of rows.
    var variant: Int
}

/// A value bound to a statement parameter.
enum SQLValue {
    case null
    case int(Int64)
    case text(String)
    case blob([UInt8])
}
