import CLibPQ
import Glibc
import Synchronization

/// A count of round trips to the server, shared by connections (`PGConnection.roundTrips`).
final class PGRoundTrips: Sendable {
    let value = Atomic<Int>(0)
}

/// A libpq failure: the SQLSTATE the server sent (or libpq's own class 08 when the connection
/// broke), its message and what was being done.
struct PGError: Error, CustomStringConvertible {
    /// Five characters, e.g. `23505` (unique violation); `08006` when the connection failed.
    var sqlstate: String
    var message: String
    /// What the engine was doing, e.g. the statement's first words.
    var context: String

    /// Whether the error means the database cannot be reached (connection failure or the server
    /// shutting down), rather than a problem with one statement.
    var isConnectionLost: Bool {
        sqlstate.hasPrefix("08") || sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03"
    }

    var description: String { "\(message) (SQLSTATE \(sqlstate), \(context))" }
}

/// One libpq connection: every libpq call of the engine is made here. Not thread-safe; owned by
/// one thread at a time (a `PGWorker`'s). Statements are prepared on first use and kept by their
/// text; values go as text (the hot statements' arrays in binary, `PGParameter`) and come back
/// as text.
final class PGConnection {
    private let handle: OpaquePointer
    private var prepared: [String: String] = [:]
    /// Where the round trips made on this connection (statements, preparations) are counted;
    /// set by the worker that owns it.
    var roundTrips: PGRoundTrips?
    /// The SQLSTATE of the last statement that failed on this connection, so that the writer can
    /// tell a deadlock or serialization failure (worth running again) once `pg` has turned the
    /// error into a `StoreError`. Cleared by `clearLastError()`.
    private(set) var lastErrorState: String?

    func clearLastError() { lastErrorState = nil }

    /// Connects to `url` (a `postgresql://` URI or a libpq keyword string; its `sslmode` and
    /// other parameters go to libpq as written), waiting at most `connectTimeout` seconds;
    /// `applicationName` is what `pg_stat_activity` shows for it. Its planner settings are
    /// `PGPlannerSettings`'.
    init(url: String, connectTimeout: Int, applicationName: String = "pushwired") throws(PGError) {
        let keywords = ["dbname", "connect_timeout", "application_name"]
        let values = [url, String(connectTimeout), applicationName]
        let connection: OpaquePointer? = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in
                // expand_dbname = 1: `dbname` holds the whole URL, whose parts override nothing
                // set before it and are overridden by nothing after it except what we add.
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else {
            throw PGError(sqlstate: "08001", message: "libpq could not allocate a connection", context: "connect")
        }
        if PQstatus(connection) != CONNECTION_OK {
            let message = PGConnection.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw PGError(sqlstate: "08001", message: message, context: "connect")
        }
        // The server's notices ("relation already exists, skipping") are not errors; libpq
        // would print each to stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
        try execute(PGPlannerSettings.sql)
    }

    deinit { PQfinish(handle) }

    private func countRoundTrip() { roundTrips?.value.add(1, ordering: .relaxed) }

    /// Whether libpq saw the connection break (a later call would fail at once).
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Whether a transaction is open (or failed and not yet rolled back).
    var inTransaction: Bool { PQtransactionStatus(handle) != PQTRANS_IDLE }

    /// Runs `sql` (one or more statements, no parameters) with the simple-query protocol.
    func execute(_ sql: String) throws(PGError) {
        countRoundTrip()
        let result = PQexec(handle, sql)
        _ = try check(result, context: sql)
    }

    /// Runs `sql` with `parameters` ($1, $2, … as text; nil is NULL), preparing it on first use.
    /// - Throws: `22021` when a value holds a NUL byte (PostgreSQL text cannot).
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = []) throws(PGError) -> PGResult {
        try query(sql, PackedParameters(parameters))
    }

    /// `query` with parameters that may be in PostgreSQL's binary format (`PGParameter`): for the
    /// large arrays of the hot statements, which as text literals were escaped here and parsed
    /// back by the server.
    @discardableResult
    func query(_ sql: String, _ parameters: [PGParameter]) throws(PGError) -> PGResult {
        try query(sql, PackedParameters(parameters))
    }

    private func query(_ sql: String, _ packed: PackedParameters?) throws(PGError) -> PGResult {
        let name = try statementName(sql)
        return try send(sql, packed) { values, lengths, formats, count in
            PQexecPrepared(handle, name, count, values, lengths, formats, 0)
        }
    }

    /// Runs `sql` with `parameters` as `query` does, but as an unnamed statement: planned for
    /// these values and the tables as they are at this call, never from a cached plan. For rare
    /// statements whose best plan changes as the tables grow from empty — the outbox claims: a
    /// prepared statement's generic plan, made while `messages` was nearly empty (a sequential
    /// scan of it, joined to the outbox), outlived it and took a second a claim a minute later.
    @discardableResult
    func queryPlannedNow(_ sql: String, _ parameters: [String?] = []) throws(PGError) -> PGResult {
        try send(sql, PackedParameters(parameters)) { values, lengths, formats, count in
            PQexecParams(handle, sql, count, nil, values, lengths, formats, 0)
        }
    }

    /// One round trip of `sql` with its `packed` parameters (nil: a text value held a NUL byte):
    /// `execute` sends them (values, lengths, formats, count) and returns libpq's result.
    /// - Throws: `22021` when a text value holds a NUL byte (PostgreSQL text cannot).
    private func send(_ sql: String, _ packed: PackedParameters?,
                      _ execute: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32)
                          -> OpaquePointer?) throws(PGError) -> PGResult {
        guard let packed else {
            throw PGError(sqlstate: "22021", message: "a text value contains a NUL byte", context: PGConnection.head(sql))
        }
        countRoundTrip()
        return try check(packed.withPointers { values, lengths, formats in execute(values, lengths, formats, Int32(packed.count)) },
                         context: sql)
    }

    private func statementName(_ sql: String) throws(PGError) -> String {
        if let name = prepared[sql] { return name }
        let name = "pw\(prepared.count + 1)"
        countRoundTrip()
        let result = PQprepare(handle, name, sql, 0, nil)
        _ = try check(result, context: sql)
        prepared[sql] = name
        return name
    }

    /// Turns a result into a `PGResult`, or its error into a `PGError` (freeing it).
    private func check(_ result: OpaquePointer?, context sql: String) throws(PGError) -> PGResult {
        guard let result else {
            throw PGError(sqlstate: "08006", message: PGConnection.trimmed(PQerrorMessage(handle)), context: PGConnection.head(sql))
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PGResult(result)
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            var message = PGConnection.trimmed(PQresultErrorMessage(result))
            if message.isEmpty { message = PGConnection.trimmed(PQerrorMessage(handle)) }
            PQclear(result)
            // No SQLSTATE: libpq's own failure, which is the connection's.
            let sqlstate = state ?? (isBroken ? "08006" : "XX000")
            lastErrorState = sqlstate
            throw PGError(sqlstate: sqlstate, message: message, context: PGConnection.head(sql))
        }
    }

    // MARK: asynchronous use, for the change feed's listener (PGListener)

    /// The connection's socket, to wait on for notifications.
    var socket: Int32 { PQsocket(handle) }

    /// The server's process id for this connection (what `pg_terminate_backend` takes).
    var backendPID: Int32 { PQbackendPID(handle) }

    /// Reads whatever the server sent without blocking; false when the connection broke.
    func consumeInput() -> Bool { PQconsumeInput(handle) == 1 && !isBroken }

    /// The payloads of the notifications received on `channel` so far (others are dropped).
    func takeNotifications(channel: String) -> [String] {
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            if String(cString: notification.pointee.relname) == channel {
                payloads.append(String(cString: notification.pointee.extra))
            }
            PQfreemem(notification)
        }
        return payloads
    }

    /// Sends an empty query without waiting for its answer (a liveness check); false when it
    /// could not be sent.
    func sendEmptyQuery() -> Bool { PQsendQuery(handle, "") == 1 }

    /// Reads the answers of a query sent with `sendEmptyQuery` that have arrived: true once all
    /// of them did (then the connection is idle again), false while some are still due.
    func finishSentQuery() -> Bool {
        while PQisBusy(handle) == 0 {
            guard let result = PQgetResult(handle) else { return true }
            PQclear(result)
        }
        return false
    }

    static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "" }
        var message = String(cString: text)
        while message.last?.isWhitespace == true { message.removeLast() }
        return message
    }

    /// The statement's first words, for error messages.
    static func head(_ sql: String) -> String {
        let words = sql.split(whereSeparator: { $0.isWhitespace }).prefix(4)
        return words.joined(separator: " ")
    }
}

/// A query's rows, as text; freed with the object.
final class PGResult {
    private let result: OpaquePointer
    /// How many rows.
    let count: Int

    init(_ result: OpaquePointer) {
        self.result = result
        self.count = Int(PQntuples(result))
    }

    deinit { PQclear(result) }

    /// How many rows the command changed (UPDATE, INSERT, DELETE).
    var changes: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) != 0 }

    /// The value as text; "" for NULL.
    func text(_ row: Int, _ column: Int) -> String {
        guard let value = PQgetvalue(result, Int32(row), Int32(column)) else { return "" }
        return String(cString: value)
    }

    /// The value as text, or nil for NULL.
    func optionalText(_ row: Int, _ column: Int) -> String? { isNull(row, column) ? nil : text(row, column) }

    /// The value as an integer; 0 for NULL (as SQLite's column_int64).
    func int(_ row: Int, _ column: Int) -> Int64 {
        guard let value = PQgetvalue(result, Int32(row), Int32(column)) else { return 0 }
        return strtoll(value, nil, 10)
    }

    /// A boolean column (`t` or `f`).
    func bool(_ row: Int, _ column: Int) -> Bool {
        guard let value = PQgetvalue(result, Int32(row), Int32(column)) else { return false }
        return value.pointee == CChar(UInt8(ascii: "t"))
    }

    /// A bytea column (hex output, PostgreSQL's default since 9.0).
    func bytes(_ row: Int, _ column: Int) -> [UInt8] { PGText.decodeBytea(text(row, column)) }
}

/// Calls `body` with NUL-terminated copies of `strings`, all in one buffer.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    // Connection keywords and values: a NUL inside one only cuts it short, as C would read it.
    let packed = PackedParameters(strings.map { Optional($0) }, allowingNUL: true) ?? PackedParameters.empty
    return packed.withPointers { values, _, _ in body(values) }
}
