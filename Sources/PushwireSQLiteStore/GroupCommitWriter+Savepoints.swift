import CSQLite
import PushwireStore

/// How one queued write runs inside the batch's open transaction: alone (a write that undoes
/// itself when it fails, as a single statement does) or inside a SAVEPOINT of its own, so that a write that
/// fails is rolled back alone and the rest of the batch still commits.
extension GroupCommitWriter {
    /// Runs `body`, which undoes itself when it fails, with no savepoint of its own.
    static func runAlone<T>(_ connection: SQLiteConnection,
                            _ body: (SQLiteConnection) throws(StoreError) -> T) -> Result<T, StoreError> {
        do {
            return .success(try body(connection))
        } catch {
            noteAbort(error, on: connection)
            return .failure(error)
        }
    }

    /// Runs `body` inside `SAVEPOINT job`, rolled back to it when `body` fails.
    static func runInSavepoint<T>(_ connection: SQLiteConnection,
                                  _ body: (SQLiteConnection) throws(StoreError) -> T) -> Result<T, StoreError> {
        do {
            try connection.statement("SAVEPOINT job" as StaticString).run()
        } catch {
            return .failure(error.store)
        }
        do {
            let value = try body(connection)
            try sql { () throws(SQLiteError) in try connection.statement("RELEASE job" as StaticString).run() }
            return .success(value)
        } catch {
            noteAbort(error, on: connection)
            // Undo this job only; the rest of the batch stays.
            _ = try? connection.statement("ROLLBACK TO job" as StaticString).run()
            _ = try? connection.statement("RELEASE job" as StaticString).run()
            return .failure(error)
        }
    }

    /// Notes `error` as what ended the open transaction when SQLite rolled all of it back (not
    /// just the failed statement): then every job that ran in it is undone (see `run`).
    static func noteAbort(_ error: StoreError, on connection: SQLiteConnection) {
        if connection.isAutocommit, connection.transactionAbort == nil { connection.transactionAbort = error }
    }
}
